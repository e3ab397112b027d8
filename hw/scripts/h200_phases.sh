#!/usr/bin/env bash
# Issue 17's second H200 run: the validation kernel's passes measured in the workload itself,
# then the per-execution validation against them. Run on the device machine from the repo root
# with the binary and its libraries in .hwcarry/ (hw/README.md). Writes $OUT/h200-phases/:
#   timeline/: conv-autotune under immediate + none at semaphores 1, 2, 32 with phase stamps;
#   calibration.json: results/hw/h200-samples/calibration.json with the four pass costs and their
#     spreads taken from those stamps (hw/scripts/phase_rates.py);
#   per-execution/: immediate + none, 400 trials and 1000 simulated samples at the points
#     (seed-repro 1, 2, 4, 32; conv-autotune 1, 2, 8, 32) against that profile.
set -u
B=.hwcarry/allocsim-hw
export LD_LIBRARY_PATH=$PWD/.hwcarry/lib
O=${OUT:-/tmp}/h200-phases
BASE=results/hw/h200-samples/calibration.json
mkdir -p "$O/timeline"
run() { echo "$*" | sed "s#$O#results/hw/h200-phases#g" >> "$O/commands.txt"; echo "+ $*" >> "$O/log.txt";
        local t0=$(date +%s%N); "$@" >> "$O/log.txt" 2>&1; local rc=$?;
        echo "rc=$rc ms=$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$O/log.txt"; }
for S in 1 2 32; do
  run $B validate conv-autotune --policies immediate --guards none --trials 3 --semaphore "$S" --platform "$BASE" \
      --timeline "$O/timeline/timeline-$S.json" --out "/tmp/h200-phases-timeline-$S"
done
run python3 hw/scripts/phase_rates.py "$BASE" "$O/calibration.json" "$O"/timeline/timeline-*.json
P="$O/calibration.json"
for pair in "seed-repro 1" "seed-repro 2" "seed-repro 4" "seed-repro 32" \
            "conv-autotune 1" "conv-autotune 2" "conv-autotune 8" "conv-autotune 32"; do
  set -- $pair
  run $B validate "$1" --policies immediate --guards none --trials 400 --sim-samples 1000 --semaphore "$2" \
      --platform "$P" --out "$O/per-execution/$1/semaphore-$2"
done
run $B summarize "$O/per-execution"
gzip "$O"/timeline/*.json
