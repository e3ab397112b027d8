#!/usr/bin/env bash
# Who corrupted whom on the H200 (issue 17's cause search): immediate + none, the one racy
# combination, at the semaphores, with each foreign read attributed to its writer
# (validate.md's "Who corrupted whom"). Run on the device machine from the repo root with the
# binary and its libraries in .hwcarry/ (hw/README.md). Writes $OUT/h200-pairs/.
set -u
NAME=h200-pairs  # the results folder this run becomes
source hw/scripts/run_lib.sh
P=${PLATFORM:-results/hw/h200-samples/calibration.json}
TRIALS=${TRIALS:-200}
for pair in ${POINTS:-"conv-autotune 1" "conv-autotune 2" "conv-autotune 8" "conv-autotune 32" "seed-repro 32"}; do
  set -- $pair
  run $B validate "$1" --policies immediate --guards none --trials "$TRIALS" --sim-samples 1000 --semaphore "$2" \
      --platform "$P" --out "$O/$1/semaphore-$2"
done
run $B summarize "$O"
