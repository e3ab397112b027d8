#!/usr/bin/env bash
# Issue 17's diagnostic run for the semaphore release (results/hw/h200-release): a calibration
# (with its semaphore_pipeline_* extras: the release with 1, 2 and 8 rounds in flight), then one
# timeline per trial, trials 0..N-1, of conv-autotune under immediate + none at each semaphore in
# SEMS, and of seed-repro at semaphore 32 under deferred-callback + wait-compute (its peak miss).
# Each timeline holds the host's side too (each callback's stages, each semaphore wait). Trial K
# is the last of a run of K+1 trials, as in h200_edge.sh. Run on the device machine from the repo
# root with the binary and its libraries in .hwcarry/ (hw/README.md). Writes $OUT/$NAME/.
set -u
NAME=${NAME:-h200-release}
N=${N:-10}
SEMS=${SEMS:-1 2 8 32}
source hw/scripts/run_lib.sh
mkdir -p "$O/timeline"
P="$O/calibration.json"
run $B calibrate --out "$P"
timelines() {  # SCENARIO SEMAPHORE POLICY GUARD
  for K in $(seq 0 $((N - 1))); do
    run $B validate "$1" --policies "$3" --guards "$4" --trials $((K + 1)) --semaphore "$2" --platform "$P" \
        --timeline "$O/timeline/$1-$2-$3-$4-trial-$K.json" --timeline-trial "$K" --out "/tmp/$NAME-$1-$2-$3-$K"
  done
}
for SEM in $SEMS; do timelines conv-autotune "$SEM" immediate none; done
timelines seed-repro 32 deferred-callback wait-compute
(cd "$O/timeline" && tar -czf ../timeline.tar.gz *.json) && rm -r "$O/timeline"
