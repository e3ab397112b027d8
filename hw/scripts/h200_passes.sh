#!/usr/bin/env bash
# Issue 17's third H200 run, after the validation kernel sums its counts per block (kernels.hip):
# a calibration whose check and fill passes come from the op kernel's phase stamps, timelines of
# conv-autotune to check that overlapping ops now pass as fast as lone ones, and the per-execution
# validation (and, unless ALL=0, every policy x guard). Run on the device machine from the repo root with the binary and its libraries in
# .hwcarry/ (hw/README.md). Writes $OUT/$NAME/ (default h200-passes).
set -u
B=.hwcarry/allocsim-hw
export LD_LIBRARY_PATH=$PWD/.hwcarry/lib
NAME=${NAME:-h200-passes}  # the results folder this run becomes
O=${OUT:-/tmp}/$NAME
mkdir -p "$O/timeline"
{ nvidia-smi -q | head -60; echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo)"; uname -sr; } > "$O/device.txt" 2>&1
run() { echo "$*" | sed "s#$O#results/hw/$NAME#g" >> "$O/commands.txt"; echo "+ $*" >> "$O/log.txt";
        local t0=$(date +%s%N); "$@" >> "$O/log.txt" 2>&1; local rc=$?;
        echo "rc=$rc ms=$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$O/log.txt"; }
P="$O/calibration.json"
run $B calibrate --out "$P"
for S in 1 2 32; do
  run $B validate conv-autotune --policies immediate --guards none --trials 3 --semaphore "$S" --platform "$P" \
      --timeline "$O/timeline/timeline-$S.json" --out "/tmp/$NAME-timeline-$S"
done
for pair in "seed-repro 1" "seed-repro 2" "seed-repro 4" "seed-repro 32" \
            "conv-autotune 1" "conv-autotune 2" "conv-autotune 8" "conv-autotune 32"; do
  set -- $pair
  run $B validate "$1" --policies immediate --guards none --trials 400 --sim-samples 1000 --semaphore "$2" \
      --platform "$P" --out "$O/per-execution/$1/semaphore-$2"
done
run $B summarize "$O/per-execution"
# Every policy x guard (40 trials, 400 samples): rates, and each peak's hardware range against the
# simulator's sampled range. ALL=0 leaves it out.
if [ "${ALL:-1}" != 0 ]; then
  for pair in "seed-repro 1" "seed-repro 2" "seed-repro 4" "seed-repro 32" \
              "conv-autotune 1" "conv-autotune 2" "conv-autotune 8" "conv-autotune 32"; do
    set -- $pair
    run $B validate "$1" --policies all --guards all --trials 40 --sim-samples 400 --semaphore "$2" \
        --platform "$P" --out "$O/all/$1/semaphore-$2"
  done
  run $B summarize "$O/all"
fi
gzip "$O"/timeline/*.json
