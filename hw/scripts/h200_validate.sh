#!/usr/bin/env bash
# The exact hardware run behind results/hw/h200/: run on the device machine from the repo root with
# the binary and its two non-system libraries carried in .hwcarry/ (see hw/README.md). Writes
# everything under $OUT/h200 (device.txt, calibration.json, commands.txt, log.txt, one folder per
# scenario and semaphore with validate.json / validate.md).
set -u
NAME=h200  # the results folder this run becomes
source hw/scripts/run_lib.sh
P="$O/calibration.json"
run $B calibrate --out "$P"
# seed-repro: 20 executions per trial; the semaphore decides how far the host runs ahead.
for s in 1 2 32; do
  run $B validate seed-repro --policies all --guards all --trials 20 --semaphore $s --platform "$P" --out "$O/seed-repro/semaphore-$s"
done
# conv-autotune: 16 training steps (executions) per trial.
for s in 1 32; do
  run $B validate conv-autotune --policies all --guards all --trials 20 --semaphore $s --platform "$P" --out "$O/conv-autotune/semaphore-$s"
done
# The session summary, computed from the validate.json files above (no GPU needed).
run $B summarize "$O"
