#!/usr/bin/env bash
# The README's test command: install dependencies, build with -Werror, run every test, then the
# same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export ALLOCSIM_WERROR=ON
echo "== release build + tests"
bash scripts/build.sh release
ctest --test-dir build --output-on-failure -j "$(nproc)"
echo "== sanitizer build (ASan + UBSan) + tests"
bash scripts/build.sh sanitize
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-asan --output-on-failure -j "$(nproc)"
