#!/usr/bin/env bash
# The exact hardware run behind results/hw/h200/: run on the device machine from the repo root with
# the binary and its two non-system libraries carried in .hwcarry/ (see hw/README.md). Writes
# everything under $OUT/h200 (device.txt, calibration.json, commands.txt, log.txt, one folder per
# scenario and semaphore with validate.json / validate.md).
set -u
B=.hwcarry/allocsim-hw
export LD_LIBRARY_PATH=$PWD/.hwcarry/lib
O=${OUT:-/tmp}/h200
mkdir -p "$O"
{ nvidia-smi -q | head -60; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv;
  echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo)"; uname -sr; } > "$O/device.txt" 2>&1
run() { echo "$*" | sed "s#$O#results/hw/h200#g" >> "$O/commands.txt"; echo "+ $*" >> "$O/log.txt";
        local t0=$(date +%s%N); "$@" >> "$O/log.txt" 2>&1; local rc=$?;
        echo "rc=$rc ms=$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$O/log.txt"; }
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
