#!/usr/bin/env bash
# Issue 17's control for validate --release-per-trial: does timing the semaphore release after
# every trial change the trials it sits between? One calibration, then REPS pairs of validating
# processes (default 6) at each of POINTS (default conv-autotune at 8 and seed-repro at 32, the
# points most sensitive to the host's pace and the release), each pair one process with ROUNDS
# releases timed after every trial (default 16, as the per-execution pass) and one without, their
# order alternating from pair to pair; TRIALS counted trials each (default 100) after WARMUP
# uncounted ones (default 0), under POLICIES x GUARDS (default immediate x none; SIM_SAMPLES
# simulated runs, default 1000). The trials' host cadence, corrupted executions and, for callback
# policies, peaks and callback wake-ups are then compared between the two arms
# (timeline_analysis.py release-control). Run on the device machine from the repo root
# with .hwcarry/ (hw/README.md); writes $OUT/$NAME/.
set -u
NAME=${NAME:-h200-release-control}
source hw/scripts/run_lib.sh
REPS=${REPS:-6}
ROUNDS=${ROUNDS:-16}
TRIALS=${TRIALS:-100}
POINTS=${POINTS:-conv-autotune:8 seed-repro:32}
POLICIES=${POLICIES:-immediate}
GUARDS=${GUARDS:-none}
WARMUP=${WARMUP:-0}
SIM_SAMPLES=${SIM_SAMPLES:-1000}
P="$O/calibration.json"
run $B calibrate --out "$P"
for i in $(seq 1 "$REPS"); do
  if [ $((i % 2)) = 1 ]; then arms="timed untimed"; else arms="untimed timed"; fi
  for point in $POINTS; do
    scenario=${point%:*} sem=${point#*:}
    for arm in $arms; do
      rounds=0; [ "$arm" = timed ] && rounds=$ROUNDS
      run $B validate "$scenario" --policies "$POLICIES" --guards "$GUARDS" --trials "$TRIALS" --semaphore "$sem" \
          --warmup-trials "$WARMUP" --sim-samples "$SIM_SAMPLES" --release-per-trial "$rounds" --platform "$P" \
          --out "$O/$scenario-$sem/$arm-$i"
    done
  done
done
