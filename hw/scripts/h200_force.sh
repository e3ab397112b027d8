#!/usr/bin/env bash
# Forces a schedule (allocsim explore's witness, docs/explore.md) on the H200: validate --schedule
# runs the schedule's scenario / policy / guard / semaphore / seed TRIALS times with its delays
# forced and TRIALS times without, so validate.md sets forced against unforced corruption per
# execution. Run on the device machine from the repo root with the binary and its libraries in
# .hwcarry/ (hw/README.md):  hw/scripts/h200_force.sh [SCHEDULE_FILE]
# Writes $OUT/$NAME/ (default h200-force) and $OUT/$NAME.tar (the run tool brings back files at
# most two folders below $OUT).
set -u
SCHEDULE=${1:-hw/scripts/seed-repro-witness.json}
NAME=${NAME:-h200-force}  # the results folder this run becomes
source hw/scripts/run_lib.sh
P=${PLATFORM:-results/hw/h200-tail/calibration.json}
TRIALS=${TRIALS:-50}
cp "$SCHEDULE" "$O/schedule.json"
# The timeline shows one forced trial: whether the held op really started after the until op.
run $B validate --schedule "$SCHEDULE" --trials "$TRIALS" --platform "$P" --timeline "$O/timeline.json" --out "$O/validate"
tar -cf "$O.tar" -C "$(dirname "$O")" "$NAME"
