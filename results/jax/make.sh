#!/usr/bin/env bash
# Regenerates results/jax/: for each JAX profile in tests/data/jax_profiles/, the exact check, the
# hazard analysis and the what-if sweeps, then README.md from those outputs (summarize.py).
# Usage: results/jax/make.sh [path/to/allocsim]   (default build/apps/allocsim; run from anywhere)
set -euo pipefail
cd "$(dirname "$0")/../.."
allocsim=${1:-build/apps/allocsim}
# Every profile in the data set (summarize.py and tests/xla/test_committed_results.cpp list the same
# folder, so a profile added there is covered by all three).
for f in tests/data/jax_profiles/*.xplane.pb.gz; do
  p=$(basename "$f" .xplane.pb.gz)
  out=results/jax/$p
  mkdir -p "$out"
  : > "$out/COMMANDS"
  run() { echo "$*" >> "$out/COMMANDS"; "$@"; }
  run "$allocsim" xla-check "$f" > "$out/xla-check.txt"
  run "$allocsim" xla-hazards "$f" --json "$out/hazards.json" > "$out/hazards.txt"
  run "$allocsim" sweep "$f" --policies all --guards all --semaphore 1,32 --out "$out/sweep" \
      --force --progress off --jobs 2 > /dev/null
  # Without the autotuner's scratch (docs/xla.md): only where compile threads allocate.
  if grep -q '"compile_allocations":[1-9]' "$out/hazards.json"; then
    run "$allocsim" sweep "$f" --policies all --guards all --semaphore 1,32 --set xla_autotune_scratch=0 \
        --out "$out/sweep-no-autotune" --force --progress off --jobs 2 > /dev/null
  fi
  rm -rf "$out"/sweep*/jobs  # per-run resume state, not results
done
python3 results/jax/summarize.py > results/jax/README.md
python3 scripts/quote_headline.py results/jax/headline.md
