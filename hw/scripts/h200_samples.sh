#!/usr/bin/env bash
# The hardware run behind results/hw/h200-samples/ (issue 17: timing as a distribution). Run on the
# device machine from the repo root with the binary and its libraries in .hwcarry/ (hw/README.md).
# The calibration records each cost's spread; every simulated run draws its costs from it.
#   all/: every policy x guard, 40 trials, 400 simulated samples per combination, at the issue's
#         semaphores (seed-repro 1, 2, 4, 32; conv-autotune 1, 2, 8, 32);
#   per-execution/: immediate + none (the racy combination) with 400 trials and 1000 samples, for
#         per-execution rates within about +-5 points.
set -u
NAME=h200-samples  # the results folder this run becomes
source hw/scripts/run_lib.sh
P="$O/calibration.json"
run $B calibrate --out "$P"
for pair in "seed-repro 1" "seed-repro 2" "seed-repro 4" "seed-repro 32" \
            "conv-autotune 1" "conv-autotune 2" "conv-autotune 8" "conv-autotune 32"; do
  set -- $pair
  run $B validate "$1" --policies all --guards all --trials 40 --sim-samples 400 --semaphore "$2" --platform "$P" \
      --out "$O/all/$1/semaphore-$2"
  run $B validate "$1" --policies immediate --guards none --trials 400 --sim-samples 1000 --semaphore "$2" \
      --platform "$P" --out "$O/per-execution/$1/semaphore-$2"
done
run $B summarize "$O/all"
run $B summarize "$O/per-execution"
