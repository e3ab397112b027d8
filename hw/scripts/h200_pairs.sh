#!/usr/bin/env bash
# Who corrupted whom on the H200 (issue 17's cause search): immediate + none, the one racy
# combination, at the semaphores, with each foreign read attributed to its writer
# (validate.md's "Who corrupted whom"). Run on the device machine from the repo root with the
# binary and its libraries in .hwcarry/ (hw/README.md). Writes $OUT/pairs/.
set -u
B=.hwcarry/allocsim-hw
export LD_LIBRARY_PATH=$PWD/.hwcarry/lib
O=${OUT:-/tmp}/pairs
P=${PLATFORM:-results/hw/h200-samples/calibration.json}
TRIALS=${TRIALS:-200}
mkdir -p "$O"
run() { echo "$*" | sed "s#$O#results/hw/h200-pairs#g" >> "$O/commands.txt"; echo "+ $*" >> "$O/log.txt";
        local t0=$(date +%s%N); "$@" >> "$O/log.txt" 2>&1; local rc=$?;
        echo "rc=$rc ms=$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$O/log.txt"; }
for pair in ${POINTS:-"conv-autotune 1" "conv-autotune 2" "conv-autotune 8" "conv-autotune 32" "seed-repro 32"}; do
  set -- $pair
  run $B validate "$1" --policies immediate --guards none --trials "$TRIALS" --sim-samples 1000 --semaphore "$2" \
      --platform "$P" --out "$O/$1/semaphore-$2"
done
run $B summarize "$O"
