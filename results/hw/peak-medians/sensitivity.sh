#!/usr/bin/env bash
# The simulator's median and p95 peak at conv-autotune semaphore 32, guard none, under the two
# callback policies, with h200-deep-tail-2's calibration as it is and with each platform cost set to
# 0 and its spread dropped, one at a time: which cost moves the simulated peak. Writes
# sensitivity.tsv beside this script. Needs a build (bash scripts/build.sh release) and python3.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=${ALLOCSIM:-build/apps/allocsim}
C=results/hw/h200-deep-tail-2/calibration.json
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
OUT=results/hw/peak-medians/sensitivity.tsv
printf 'policy\tzeroed\tpeak_median_mib\tpeak_p95_mib\n' > "$T/out.tsv"
for policy in deferred-callback batched-callback; do
  for field in none launch_overhead_ns event_record_ns callback_enqueue_ns callback_latency_ns callback_after_op_ns \
               callback_run_ns host_alloc_ns host_free_ns release_bookkeeping_ns sync_wakeup_ns signal_wakeup_ns \
               wake_first_launch_ns device_op_gap_ns op_check_ns_per_mib op_fill_ns_per_mib; do
    python3 - "$C" "$field" "$T/platform.json" <<'PY'
import json, sys
platform, field, out = sys.argv[1:]
d = json.load(open(platform))
if field != "none":
    d[field] = 0
    for key in ("spread", "spread_tail"):
        d.get(key, {}).pop(field, None)
json.dump(d, open(out, "w"))
PY
    "$A" run conv-autotune --semaphore 32 --policy "$policy" --guard none --samples 400 \
        --platform "$T/platform.json" --json "$T/run.json" --progress off > /dev/null
    python3 - "$T/run.json" "$policy" "$field" >> "$T/out.tsv" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["peak_bytes_in_use"]
print(f"{sys.argv[2]}\t{sys.argv[3]}\t{p['median'] / 1048576:g}\t{p['p95'] / 1048576:g}")
PY
  done
done
mv "$T/out.tsv" "$OUT"
echo "wrote $OUT"
