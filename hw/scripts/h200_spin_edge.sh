#!/usr/bin/env bash
# seed-repro's execution 1 at semaphore 32 against the length of its first spin (issue 17): it
# corrupts when the host is still enqueueing the trial's memsets once the GPU has run the first
# 1 ms spin and filled X#1, so the whole trial's host time races that spin. Lengthening the spin
# moves the edge as a slower or faster host would, measured in microseconds of device time: where
# the hardware's rate crosses 50% against where the simulator's does says how much more (or less)
# host time the H200 took on this program than the calibration charges. A calibration, then
# SPINS (default 800 900 1000 1100 1200 us) validations of TRIALS (default 200) trials each.
# Run on the device machine from the repo root with the binary and its libraries in .hwcarry/
# (hw/README.md). Writes $OUT/$NAME/ (default h200-spin-edge).
set -u
NAME=${NAME:-h200-spin-edge}  # the results folder this run becomes
source hw/scripts/run_lib.sh
P="$O/calibration.json"
run $B calibrate --out "$P"
for spin in ${SPINS:-800 900 1000 1100 1200}; do
  run $B validate seed-repro --policies immediate --guards none --trials "${TRIALS:-200}" --sim-samples 1000 \
      --semaphore 32 --set "spin_ns=${spin}000" --warmup-trials 20 --platform "$P" --out "$O/spin-$spin"
done
run $B summarize "$O"
