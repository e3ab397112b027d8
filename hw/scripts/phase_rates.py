#!/usr/bin/env python3
"""The validation kernel's check and fill passes, alone and contended, from H200 timelines.

Why: `allocsim-hw calibrate` times the passes of one op kernel alone. In the validation workload
the passes of ops that overlap an op of another stream ran several times slower (the phase stamps
of `allocsim-hw validate --timeline`, results/hw/h200-pairs), and a calibration micro-workload
(one op against a chain of op kernels on another stream) did not reproduce it. So the four pass
costs are measured here from the workload's own stamps: per op, the check pass is the last block's
end of checking less the first block's start, the fill pass the last block's end less the first
block's start of writing, each per MiB it covers; an op is contended when an op of another stream
was running as it started (the simulator's rule: SimDevice::device_phases).

Usage: phase_rates.py BASE_PLATFORM.json OUT_PLATFORM.json TIMELINE.json[.gz]...
Writes BASE with op_check_ns_per_mib, op_fill_ns_per_mib, op_check_contended_ns_per_mib and
op_fill_contended_ns_per_mib set to the medians and their spreads (min, p10, p25, p50, p75, p90,
p99: core/platform_spread.h) added; prints the sample counts and medians.
"""
import gzip
import json
import sys

MIB = 1 << 20
QUANTILES = (0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99)


def quantile(sorted_values, q):
    """The nearest rank, the rule of spread_quantiles in sim/include/allocsim/core/platform_spread.h
    )."""
    return sorted_values[min(len(sorted_values) - 1, int(q * (len(sorted_values) - 1) + 0.5))]


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    base_path, out_path, timelines = argv[1], argv[2], argv[3:]
    samples = {"op_check_ns_per_mib": [], "op_fill_ns_per_mib": [],
               "op_check_contended_ns_per_mib": [], "op_fill_contended_ns_per_mib": []}
    for path in timelines:
        for combo in load(path)["combinations"]:
            ops = [o for o in combo["ops"] if "reads_done_ns" in o]
            for o in ops:
                contended = any(x["stream"] != o["stream"] and x["start_ns"] <= o["start_ns"] < x["end_ns"]
                                for x in combo["ops"])
                suffix = "_contended_ns_per_mib" if contended else "_ns_per_mib"
                # Passes over less than 1 MiB are mostly the kernel's fixed cost: left out.
                if o["read_bytes"] >= MIB:
                    samples["op_check" + suffix].append((o["reads_done_ns"] - o["start_ns"]) * MIB / o["read_bytes"])
                if o["write_bytes"] >= MIB:
                    samples["op_fill" + suffix].append((o["end_ns"] - o["writes_start_ns"]) * MIB / o["write_bytes"])
    platform = load(base_path)
    spread = platform.setdefault("spread", {})
    for field, values in samples.items():
        if not values:
            sys.exit(f"phase_rates.py: no sample of {field} in the timelines (no phase stamps?)")
        values.sort()
        platform[field] = round(quantile(values, 0.5))
        spread[field] = [round(quantile(values, q), 1) for q in QUANTILES]
        print(f"{field}: {len(values)} ops, median {platform[field]} ns/MiB")
    with open(out_path, "w") as f:
        json.dump(platform, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
