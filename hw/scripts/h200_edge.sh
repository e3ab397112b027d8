#!/usr/bin/env bash
# Issue 17's diagnostic run for the per-execution misses (by default seed-repro and conv-autotune
# at semaphore 32; SCENARIOS and SEM choose others): one timeline per trial, GPU and simulator side by side, for trials 0..N-1 of
# `immediate + none`. Trial K is the last of a run of K+1 trials, so each timeline is recorded
# in the state a K+1-trial validation reaches (trial 0 is the process's first). Run on the device
# machine from the repo root with the binary and its libraries in .hwcarry/ (hw/README.md).
# Writes $OUT/$NAME/ (default h200-edge).
set -u
NAME=${NAME:-h200-edge}
N=${N:-40}
SEM=${SEM:-32}
SCENARIOS=${SCENARIOS:-seed-repro conv-autotune}
source hw/scripts/run_lib.sh
mkdir -p "$O/timeline"
P="$O/calibration.json"
run $B calibrate --out "$P"
for S in $SCENARIOS; do
  for K in $(seq 0 $((N - 1))); do
    run $B validate "$S" --policies immediate --guards none --trials $((K + 1)) --semaphore "$SEM" --platform "$P" \
        --timeline "$O/timeline/$S-$SEM-trial-$K.json" --timeline-trial "$K" --out "/tmp/$NAME-$S-$K"
  done
done
(cd "$O/timeline" && tar -czf ../timeline.tar.gz *.json) && rm -r "$O/timeline"
