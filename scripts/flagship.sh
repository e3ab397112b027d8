#!/usr/bin/env bash
# The README's first command: install dependencies, build, and regenerate the flagship report
# (conv-autotune: every policy and guard, semaphore 1..32, 3 seeds) in results/conv-autotune/.
# --force: the sweep takes seconds, and a rebuilt binary must not reuse runs recorded by an older
# one (resume is for long manual sweeps; see `allocsim sweep --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
out=results/conv-autotune
build/apps/allocsim sweep conv-autotune --policies all --guards all --semaphore 1,2,4,8,16,32 --seeds 3 \
  --out "$out" --force "$@"
echo "flagship: $out/report.md"
python3 scripts/quote_headline.py results/conv-autotune/headline.md
echo "flagship: README.md quotes $out/headline.md"
