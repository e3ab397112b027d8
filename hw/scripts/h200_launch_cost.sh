#!/usr/bin/env bash
# Issue 17: does a launch's host cost depend on what the device is doing? 40 back-to-back launches
# of an empty op while the side stream sweeps 2 GiB (launch-traffic), runs a one-thread spin
# (launch-quiet), or after the host waited 1 ms for a spin (launch-wake): hw/scripts/launch-cost/.
# Each: 20 trials, the timeline of trial 19 (the host's enqueue times). Run on the device machine
# from the repo root with .hwcarry/ (hw/README.md); writes $OUT/$NAME/ (default h200-launch).
set -u
NAME=${NAME:-h200-launch}
source hw/scripts/run_lib.sh
mkdir -p "$O/timeline"
P=${PLATFORM:-$O/calibration.json}
[ -f "$P" ] || run $B calibrate --out "$P"
for V in traffic quiet wake; do
  for K in 5 10 15 19; do
    run $B validate hw/scripts/launch-cost/launch-$V.yaml --policies immediate --guards none --trials $((K + 1)) \
        --platform "$P" --timeline "$O/timeline/launch-$V-trial-$K.json" --timeline-trial "$K" --out "/tmp/$NAME-$V-$K"
  done
done
(cd "$O/timeline" && tar -czf ../timeline.tar.gz *.json) && rm -r "$O/timeline"
