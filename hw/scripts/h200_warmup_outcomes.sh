#!/usr/bin/env bash
# Issue 17: does a process's warm-up predict its own trials? One calibration, then REPS validating
# processes (default 8) at each of POINTS (default conv-autotune at 8 and seed-repro at 32, the
# points whose executions moved from process to process in results/hw/h200-process-outcomes), each
# with WARMUP uncounted trials (default 40) before its TRIALS counted ones (default 40), under
# immediate + none. validate.json then holds the calibrated prediction, the warm-up-paced one and
# the one paced by the counted trials themselves. Run on the device machine from the repo root with
# .hwcarry/ (hw/README.md); writes $OUT/$NAME/.
set -u
NAME=${NAME:-h200-warmup-outcomes}
source hw/scripts/run_lib.sh
REPS=${REPS:-8}
WARMUP=${WARMUP:-40}
TRIALS=${TRIALS:-40}
POINTS=${POINTS:-conv-autotune:8 seed-repro:32}
P="$O/calibration.json"
run $B calibrate --out "$P"
for i in $(seq 1 "$REPS"); do
  for point in $POINTS; do
    scenario=${point%:*} sem=${point#*:}
    run $B validate "$scenario" --policies immediate --guards none --trials "$TRIALS" --semaphore "$sem" \
        --warmup-trials "$WARMUP" --platform "$P" --out "$O/$scenario-$sem/process-$i"
  done
done
