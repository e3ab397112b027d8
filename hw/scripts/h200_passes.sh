#!/usr/bin/env bash
# Issue 17's H200 validation run (first made after the validation kernel summed its counts per
# block; NAME=h200-relay is the current one): a calibration, timelines of conv-autotune at
# semaphores 1, 2 and 32, the per-execution validation (400 trials, 1000 samples per point) and,
# unless ALL=0, every policy x guard (40 trials, 4000 samples). Run on the device machine from the
# repo root with the binary and its libraries in .hwcarry/ (hw/README.md). Writes $OUT/$NAME/
# (default h200-passes). Each validate first runs the calibration's host-pace workload in its own
# process (a few seconds) and reports what it measured (process_pace in validate.json; not applied:
# results/hw/h200-inproc says why). Each combination first runs WARMUP (per-execution pass, default
# 40) or WARMUP_ALL (every policy, default 10) uncounted trials in its process, whose host pace a
# second prediction draws from (validate --warmup-trials, sim_warmup_paced). RELEASE_PER_TRIAL
# (default 0) semaphore releases are timed after every counted trial of the per-execution pass
# (validate --release-per-trial; repredict --release trials draws from them), RELEASE_PER_TRIAL_ALL
# (default 0) after every trial of the every-policy pass. PER_EXEC=0 leaves the per-execution pass
# out. PACE_BAND=0 leaves out the per-execution pass's band (validate --pace-band: the calibrated
# prediction again at the calibration's p0 and p99 host pace, sim_pace_band). PROCESSES=N (default 1) runs each point's 400 trials in N validating processes of 400/N
# trials instead of one (<point>/process-<i>/, round by round over the points, so a drift of the
# machine meets every point alike); summarize pools them. POINTS (default all eight, "seed-repro
# 1,seed-repro 2,...") names the per-execution pass's points. Split over several device calls (one may run 10 minutes): CALIBRATION=FILE takes an earlier
# call's calibration instead of calibrating again, TIMELINES=0 leaves the timelines out, and
# ALL_SCENARIOS (default "seed-repro conv-autotune") the every-policy pass's scenarios.
set -u
NAME=${NAME:-h200-passes}  # the results folder this run becomes
source hw/scripts/run_lib.sh
mkdir -p "$O/timeline"
P="$O/calibration.json"
if [ -n "${CALIBRATION:-}" ]; then
  cp "$CALIBRATION" "$P" && echo "# calibration.json: the one an earlier call of this run wrote" >> "$O/commands.txt"
else
  run $B calibrate --out "$P"
fi
if [ "${TIMELINES:-1}" != 0 ]; then
for S in 1 2 32; do
  run $B validate conv-autotune --policies immediate --guards none --trials 3 --semaphore "$S" --platform "$P" \
      --timeline "$O/timeline/timeline-$S.json" --out "/tmp/$NAME-timeline-$S"
done
fi
if [ "${PER_EXEC:-1}" != 0 ]; then
N=${PROCESSES:-1}
for i in $(seq 1 "$N"); do
  IFS=, read -r -a points <<< "${POINTS:-seed-repro 1,seed-repro 2,seed-repro 4,seed-repro 32,conv-autotune 1,conv-autotune 2,conv-autotune 8,conv-autotune 32}"
  for pair in "${points[@]}"; do
    set -- $pair
    out="$O/per-execution/$1/semaphore-$2"
    [ "$N" = 1 ] || out="$out/process-$i"
    run $B validate "$1" --policies immediate --guards none --trials $((400 / N)) --sim-samples 1000 --semaphore "$2" \
        --warmup-trials "${WARMUP:-40}" --release-per-trial "${RELEASE_PER_TRIAL:-0}" \
        $([ "${PACE_BAND:-1}" = 0 ] || echo --pace-band) --platform "$P" --out "$out"
  done
done
run $B summarize "$O/per-execution"
fi
# Every policy x guard (40 trials): rates, and each peak's hardware range against the
# simulator's sampled range. The simulator runs ALL_SIM_SAMPLES (default 4000): were both sides
# drawn from one distribution, a hardware extreme would fall outside the simulator's with
# probability trials / (trials + samples) per side, 9% at 400 samples and 1% at 4000.
# ALL=0 leaves it out.
if [ "${ALL:-1}" != 0 ]; then
  for pair in "seed-repro 1" "seed-repro 2" "seed-repro 4" "seed-repro 32" \
              "conv-autotune 1" "conv-autotune 2" "conv-autotune 8" "conv-autotune 32"; do
    set -- $pair
    case " ${ALL_SCENARIOS:-seed-repro conv-autotune} " in *" $1 "*) ;; *) continue ;; esac
    run $B validate "$1" --policies all --guards all --trials 40 --sim-samples "${ALL_SIM_SAMPLES:-4000}" --semaphore "$2" \
        --warmup-trials "${WARMUP_ALL:-10}" --release-per-trial "${RELEASE_PER_TRIAL_ALL:-0}" --platform "$P" \
        --out "$O/all/$1/semaphore-$2"
  done
  run $B summarize "$O/all"
fi
if ls "$O"/timeline/*.json >/dev/null 2>&1; then gzip "$O"/timeline/*.json; fi
