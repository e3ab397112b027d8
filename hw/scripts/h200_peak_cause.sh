#!/usr/bin/env bash
# What holds the rare higher peak of seed-repro at semaphore 1 under the callback policies with
# wait-compute (issue 17: 16 MiB in one trial of 40 in results/hw/h200-all-wake, 12 in every
# simulated run)? A calibration, then validations of seed-repro at semaphore 1, each its own
# process with `validate --callback-log` (every trial's callbacks, semaphore waits, allocations and
# frees): COMBOS (default: deferred-callback with wait-compute, batched-callback with wait-compute,
# deferred-callback with none), space-separated policy:guard:processes:trials entries (all:all:3:40:
# three every-policy passes, as the pass that saw 16 MiB ran).
# The logs are too large to bring back, so callback_log.py summarizes every trial here
# (summary-*.jsonl) and keeps the raw lines of the first KEEP (default 20) trials and of every trial
# above its commonest peak (kept-*.jsonl.gz; only the latter for an every-policy pass); then `callback_log.py peak-cause` writes analysis.md.
# Run on the device machine from the repo root with the binary and its libraries in .hwcarry/
# (hw/README.md). Writes $OUT/$NAME/ (default h200-peak-cause). SCENARIO (default seed-repro),
# SEMAPHORE (default 1) and
# SIM_SAMPLES (default: validate's) go to every validate; KEEP_HIGHEST=1 keeps, besides the first
# trials, only those at their combination's highest peak (where peaks vary, as at semaphore 32);
# KEEP_LOWEST=1 those below its commonest peak instead, and leaves analysis.md out (peak-cause reads
# what held a high peak; hw/scripts/host_gaps.py reads the low ones). CALIBRATION=FILE validates
# against that calibration (copied into the folder) instead of running calibrate.
set -u
NAME=${NAME:-h200-peak-cause}  # the results folder this run becomes
source hw/scripts/run_lib.sh
P="$O/calibration.json"
if [ -n "${CALIBRATION:-}" ]; then cp "$CALIBRATION" "$P"; else run $B calibrate --out "$P"; fi
L=/tmp/callback-logs  # the whole logs: not brought back
mkdir -p "$L"
SIM=(); [ -n "${SIM_SAMPLES:-}" ] && SIM=(--sim-samples "$SIM_SAMPLES")
COMBOS=${COMBOS:-deferred-callback:wait-compute:1:3000 batched-callback:wait-compute:1:3000 deferred-callback:none:1:1000}
for combo in $COMBOS; do
  IFS=: read -r policy guard processes trials <<< "$combo"
  for i in $(seq 1 "$processes"); do
    tag=$policy-$guard; [ "$processes" -gt 1 ] && tag=$tag-$i
    run $B validate "${SCENARIO:-seed-repro}" --policies "$policy" --guards "$guard" --trials "$trials" \
        --semaphore "${SEMAPHORE:-1}" "${SIM[@]}" --warmup-trials 10 --platform "$P" \
        --callback-log "$L/$tag.jsonl" --out "$O/$tag"
    run python3 hw/scripts/callback_log.py summarize "$L/$tag.jsonl" "$O/summary-$tag.jsonl"
    first=${KEEP:-20}; [ "$policy" = all ] && first=0
    run python3 hw/scripts/callback_log.py keep "$L/$tag.jsonl" "$O/kept-$tag.jsonl.gz" "$first" ${KEEP_HIGHEST:+--highest} ${KEEP_LOWEST:+--lowest}
    rm -f "$L/$tag.jsonl"
  done
done
[ -n "${KEEP_LOWEST:-}" ] || run python3 hw/scripts/callback_log.py peak-cause "$O"
