#!/usr/bin/env bash
# Issue 17: is the host's pace a property of the process (where it runs) or of the moment? The
# same validation (SCENARIO at semaphore SEM, default conv-autotune at 32, immediate + none, 40
# trials) in REPS processes each: unpinned, pinned to CPUs 0-3, pinned to CPUs 8-11 (PINS chooses),
# interleaved so time drift hits all alike. Each process's median host busy time is in its
# validate.json. WARMUP (default 0) uncounted trials run first in each process
# (validate --warmup-trials). Run on the device machine from the repo root with .hwcarry/ (hw/README.md);
# writes $OUT/$NAME/.
set -u
NAME=${NAME:-h200-process-pace}
source hw/scripts/run_lib.sh
REPS=${REPS:-6}
SCENARIO=${SCENARIO:-conv-autotune}
SEM=${SEM:-32}
PINS=${PINS:-any 0-3 8-11}
P=${PLATFORM:-results/hw/h200-relay/calibration.json}
WARMUP=${WARMUP:-0}
lscpu > "$O/lscpu.txt" 2>&1
for i in $(seq 1 "$REPS"); do
  for where in $PINS; do
    pin=(); [ "$where" != any ] && pin=(taskset -c "$where")
    run "${pin[@]}" $B validate "$SCENARIO" --policies immediate --guards none --trials 40 --semaphore "$SEM" \
        --warmup-trials "$WARMUP" --platform "$P" --out "$O/runs/$where-$i"
  done
done
