#!/usr/bin/env bash
# The hardware run behind results/hw/h200-samples/ (issue 17: timing as a distribution). Run on the
# device machine from the repo root with the binary and its libraries in .hwcarry/ (hw/README.md).
# The calibration records each cost's spread; every simulated run draws its costs from it.
#   all/: every policy x guard, 40 trials, 400 simulated samples per combination, at the issue's
#         semaphores (seed-repro 1, 2, 4, 32; conv-autotune 1, 2, 8, 32);
#   per-execution/: immediate + none (the racy combination) with 400 trials and 1000 samples, for
#         per-execution rates within about +-5 points.
set -u
B=.hwcarry/allocsim-hw
export LD_LIBRARY_PATH=$PWD/.hwcarry/lib
O=${OUT:-/tmp}/h200-samples
mkdir -p "$O"
{ nvidia-smi -q | head -60; echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo)"; uname -sr; } > "$O/device.txt" 2>&1
run() { echo "$*" | sed "s#$O#results/hw/h200-samples#g" >> "$O/commands.txt"; echo "+ $*" >> "$O/log.txt";
        local t0=$(date +%s%N); "$@" >> "$O/log.txt" 2>&1; local rc=$?;
        echo "rc=$rc ms=$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$O/log.txt"; }
P="$O/calibration.json"
run $B calibrate --out "$P"
for pair in "seed-repro 1" "seed-repro 2" "seed-repro 4" "seed-repro 32" \
            "conv-autotune 1" "conv-autotune 2" "conv-autotune 8" "conv-autotune 32"; do
  set -- $pair
  run $B validate "$1" --policies all --guards all --trials 40 --sim-samples 400 --semaphore "$2" --platform "$P" \
      --out "$O/all/$1/semaphore-$2"
  run $B validate "$1" --policies immediate --guards none --trials 400 --sim-samples 1000 --semaphore "$2" \
      --platform "$P" --out "$O/per-execution/$1/semaphore-$2"
done
run $B summarize "$O/all"
run $B summarize "$O/per-execution"
