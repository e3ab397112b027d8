#!/usr/bin/env bash
# The exact hardware run behind results/hw/h200/: run on the device machine from the repo root with
# the binary and its two non-system libraries carried in .hwcarry/ (see hw/README.md).
set -u
B=.hwcarry/allocsim-hw
export LD_LIBRARY_PATH=$PWD/.hwcarry/lib
O=/tmp/hwout
mkdir -p "$O"
nvidia-smi -q | head -60 > "$O/device.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv >> "$O/device.txt" 2>&1
run() { echo "+ $*" | tee -a "$O/commands.txt"; "$@" 2>&1 | tee -a "$O/log.txt"; echo "rc=${PIPESTATUS[0]}" | tee -a "$O/log.txt"; }
run $B calibrate --out "$O/calibration.json"
run $B validate seed-repro --policies all --guards all --trials 20 --set trials=1 --platform "$O/calibration.json" --out "$O/seed-repro"
run $B validate seed-repro --policies immediate --guards none,wait-compute --trials 5 --platform "$O/calibration.json" --out "$O/seed-repro-ahead"
run $B validate conv-autotune --policies all --guards all --trials 5 --platform "$O/calibration.json" --out "$O/conv-autotune"
tar -C "$O" -cf "${OUT:-/tmp}/results.tar" .
cp "$O/log.txt" "${OUT:-/tmp}/log.txt"
