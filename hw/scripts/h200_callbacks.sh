#!/usr/bin/env bash
# Issue 17's diagnostic run for the peak-range misses of the callback policies: the two policies
# that free in host callbacks (deferred-callback, batched-callback) with every guard, at SEMS of
# each of SCENARIOS, twice: with the backend's plain state lock ("plain", --state-lock plain) and
# with a waiting callback let in first ("first", --state-lock callbacks-first, the default;
# hw/src/gpu/state_mutex.h). VARIANTS, POLICIES and GUARDS narrow it (defaults: both locks, both
# policies, every guard); N trials per combination. validate.json's callback_trials holds each
# trial's peak and its callbacks' waits. Calibrates first (this host's profile). Run on the device
# machine from the repo root with the binary and its libraries in .hwcarry/ (hw/README.md).
# Writes $OUT/$NAME/ (default h200-callbacks).
set -u
NAME=${NAME:-h200-callbacks}
N=${N:-40}
SEMS=${SEMS:-8 32}
SCENARIOS=${SCENARIOS:-conv-autotune seed-repro}
VARIANTS=${VARIANTS:-plain first}
POLICIES=${POLICIES:-deferred-callback,batched-callback}
GUARDS=${GUARDS:-all}
source hw/scripts/run_lib.sh
P="$O/calibration.json"
run $B calibrate --out "$P"
for V in $VARIANTS; do
  FLAG="--state-lock plain"
  [ "$V" = first ] && FLAG="--state-lock callbacks-first"
  for S in $SCENARIOS; do
    for SEM in $SEMS; do
      run $B validate "$S" --policies "$POLICIES" --guards "$GUARDS" --trials "$N" --sim-samples 400 \
          --semaphore "$SEM" --platform "$P" $FLAG --out "$O/$V/$S/semaphore-$SEM"
    done
  done
  run $B summarize "$O/$V"
done
