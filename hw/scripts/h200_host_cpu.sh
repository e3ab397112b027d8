#!/usr/bin/env bash
# Does the host's pace move with the CPU the trials' thread runs on? (issue 17) A calibration,
# then PAIRS (default 4) pairs of validations of seed-repro at semaphore 32, TRIALS (default 600)
# trials each, each its own process: the first of a pair lets the thread go where the scheduler
# puts it, the second pins it (validate --host-cpu HOST_CPU, default 3). Every trial's CPU is in
# validate.json (host_cpu_by_trial) beside its cadence and the hypervisor's steal
# (timeline_analysis.py host-cpu). Run on the device machine from the repo root with the binary and
# its libraries in .hwcarry/ (hw/README.md). Writes $OUT/$NAME/ (default h200-host-cpu).
set -u
NAME=${NAME:-h200-host-cpu}  # the results folder this run becomes
source hw/scripts/run_lib.sh
{ lscpu; nproc; } > "$O/cpus.txt" 2>&1
P="$O/calibration.json"
run $B calibrate --out "$P"
for i in $(seq 1 "${PAIRS:-4}"); do
  for pin in free pinned; do
    extra=(); [ $pin = pinned ] && extra=(--host-cpu "${HOST_CPU:-3}")
    run $B validate seed-repro --policies immediate --guards none --trials "${TRIALS:-600}" --sim-samples 1000 \
        --semaphore 32 --warmup-trials 20 --platform "$P" "${extra[@]}" --out "$O/$pin-$i"
  done
done
run $B summarize "$O"
