#!/usr/bin/env bash
# seed-repro's execution 1 at semaphore 32 against the length of its first spin (issue 17): it
# corrupts when the host is still enqueueing the trial's memsets once the GPU has run the first
# 1 ms spin and filled X#1, so the whole trial's host time races that spin. Lengthening the spin
# moves the edge as a slower or faster host would, measured in microseconds of device time: where
# the hardware's rate crosses 50% against where the simulator's does says how much more (or less)
# host time the H200 took on this program than the calibration charges. A calibration, then
# SPINS (default 800 900 1000 1100 1200 us; one that repeats gets a folder spin-N-2, -3, ...)
# validations of TRIALS (default 200) trials each, each its own process. CPUS (e.g. 0-3), when
# set, runs every process under `taskset -c CPUS`: whether the host's pace on the program still
# moves from process to process when every process runs on the same cores.
# Run on the device machine from the repo root with the binary and its libraries in .hwcarry/
# (hw/README.md). Writes $OUT/$NAME/ (default h200-spin-edge).
set -u
NAME=${NAME:-h200-spin-edge}  # the results folder this run becomes
source hw/scripts/run_lib.sh
{ lscpu; nproc; } > "$O/cpus.txt" 2>&1
[ -n "${CPUS:-}" ] && B="taskset -c $CPUS $B"
P="$O/calibration.json"
run $B calibrate --out "$P"
declare -A seen
for spin in ${SPINS:-800 900 1000 1100 1200}; do
  seen[$spin]=$(( ${seen[$spin]:-0} + 1 ))
  dir="$O/spin-$spin"; [ "${seen[$spin]}" -gt 1 ] && dir="$dir-${seen[$spin]}"
  run $B validate seed-repro --policies immediate --guards none --trials "${TRIALS:-200}" --sim-samples 1000 \
      --semaphore 32 --set "spin_ns=${spin}000" --warmup-trials 20 --platform "$P" --out "$dir"
done
run $B summarize "$O"
