#!/usr/bin/env python3
"""Why a hardware trial's peak fell outside the simulated range: each such trial beside the two things
that vary between trials and processes and that the calibrated prediction draws from calibration.

  peak_misses.py SESSION [--check]   SESSION/peak-misses.md, from the every-policy pass
                                     (SESSION/all/*/semaphore-*/validate.json; else SESSION/*/*/validate.json),
                                     SESSION/calibration.json
                                     and, when they are there, SESSION/peak-misses-paced.tsv and
                                     SESSION/peak-medians/sim-medians.tsv
  peak_misses.py paced SESSION ALLOCSIM [--check]
                                     SESSION/peak-misses-paced.tsv: for each such trial, the ALLOCSIM
                                     binary's `run --samples` with every host cost times the trial's own
                                     host pace (`--host-pace`): its simulated peak median, p95 and max

For every callback or poll combination whose trials' peak range is not inside the calibrated simulated
runs' range, each trial outside it with (a) its host cadence over the run's median trial's, and its rank
among the run's trials, and (b) its longest wait from a callback's hand-over to the relay's body
(callback_trials' wake_max_ns), with how many other trials of the run waited at least as long and stayed
inside. Then, per validate process, the share of callback trials with such a wait of at least 1 and
2.5 ms against the calibration's chance of one in a trial of as many callbacks. With --check only
compares (exit 1 on a difference): tests/hw runs it so the committed file stays what its data says.
Standard library only.
"""
import bisect
import json
import os
import sys
from pathlib import Path

from callback_log import REPO, median, mib, span
from generated_file import write_or_check
from rank_correlation import rank_correlation

# The relay waits counted per process, ns.
WAIT_LEVELS = (1_000_000, 2_500_000)
SPREAD_LEVELS = (0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99)  # sim/include/allocsim/core/platform_spread.h
TAIL_FROM = 0.999


def distribution_points(calibration, field):
    """(level, value) points of FIELD's drawn distribution: its spread quantiles, then its tail's points
    (platform_spread.h's tail_level), as the simulator draws it: linear between them."""
    q = calibration["spread"][field]
    points = list(zip(SPREAD_LEVELS, q))
    tail = calibration.get("spread_tail", {}).get(field, [])
    for i, value in enumerate(tail):
        level = 1.0 if i + 1 >= len(tail) else TAIL_FROM + (1 - TAIL_FROM) * i / (len(tail) - 1)
        points.append((level, value))
    return points


def chance_at_least(points, y):
    """P(draw >= y) under the piecewise-linear inverse CDF through points."""
    for (u0, v0), (u1, v1) in zip(points, points[1:]):
        if y <= v1:
            if y <= v0:
                return 1 - u0
            return 1 - (u0 + (u1 - u0) * (y - v0) / (v1 - v0))
    return 0.0


def relay_wait_chance(calibration, wait_ns, grid=20000):
    """The simulator's chance that one marker reached behind device work waits at least wait_ns from its
    hand-over to its body: its body starts callback_after_op_ns after the reach, its hand-over
    callback_handover_ns after it (sim_device_streams.cpp's hand_to_relay), each drawn on its own."""
    after_op = distribution_points(calibration, "callback_after_op_ns")
    handover = distribution_points(calibration, "callback_handover_ns")
    levels, values = [u for u, _ in handover], [v for _, v in handover]
    total = 0.0
    for k in range(grid):  # the hand-over's draw at evenly spaced probabilities
        u = (k + 0.5) / grid
        i = max(1, bisect.bisect_left(levels, u))
        u0, u1, v0, v1 = levels[i - 1], levels[i], values[i - 1], values[i]
        h = v0 + (v1 - v0) * ((u - u0) / (u1 - u0) if u1 > u0 else 0)
        total += chance_at_least(after_op, h + wait_ns)
    return total / grid


PACED_SAMPLES = 1000
PACED_COLUMNS = ["scenario", "semaphore", "policy", "guard", "trial", "pace", "samples", "median", "p95", "max"]


def outside_trials(session):
    """(validate.json, run, trial index, the trials' peaks) for every trial of a callback or poll
    combination whose peak lies outside the calibrated simulated range."""
    for v in passes(session):
        for r in v["runs"]:
            peaks = [t["peak_bytes_in_use"] for t in r.get("callback_trials", [])]
            lo, hi = r["sim"]["peak_bytes_in_use_min"], r["sim"]["peak_bytes_in_use_max"]
            for i, p in enumerate(peaks):
                if p < lo or p > hi:
                    yield v, r, i, peaks


def trial_pace(r, i):
    """Trial i's host pace: its launch cadence over the simulator's median (as sim_host_paced draws)."""
    return r["host_cadence_by_trial"][i] / r["sim"]["host_cadence_ns"]


def paced(session, binary):
    """The TSV's text: each outside trial's program simulated with every host cost times its pace."""
    import subprocess
    import tempfile
    session = Path(session)
    rows = ["\t".join(PACED_COLUMNS)]
    with tempfile.TemporaryDirectory() as tmp:
        out_json = Path(tmp) / "run.json"
        for v, r, i, _ in outside_trials(session):
            pace = f"{trial_pace(r, i):.3f}"
            subprocess.run([binary, "run", v["scenario"], "--semaphore", str(v["semaphore"]), "--policy", r["policy"],
                            "--guard", r["guard"], "--samples", str(PACED_SAMPLES), "--platform",
                            str(session / "calibration.json"), "--host-pace", pace, "--json", str(out_json),
                            "--progress", "off"], check=True, stdout=subprocess.DEVNULL)
            q = json.load(open(out_json))["host_pace_scan"][0]["peak_bytes_in_use"]
            rows.append("\t".join(str(x) for x in (v["scenario"], v["semaphore"], r["policy"], r["guard"], i, pace,
                                                   PACED_SAMPLES, q["median"], q["p95"], q["max"])))
    return "\n".join(rows) + "\n"


def read_paced(session):
    path = Path(session) / "peak-misses-paced.tsv"
    if not path.exists():
        return {}
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f]
    return {(r["scenario"], int(r["semaphore"]), r["policy"], r["guard"], int(r["trial"])): r for r in rows}


def read_sim_medians(session):
    """(scenario, semaphore, policy, guard) -> the calibrated prediction's median peak, from
    SESSION/peak-medians/sim-medians.tsv (callback_log.py sim-medians) when it is there."""
    path = Path(session) / "peak-medians" / "sim-medians.tsv"
    if not path.exists():
        return {}
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f]
    return {(r["scenario"], int(r["semaphore"]), r["policy"], r["guard"]): int(r["median"]) for r in rows}


def passes(session):
    """The validate.json files of SESSION's every-policy pass (all/<scenario>/semaphore-<n>/), or else
    of its folders two below (<run>/<combination>/, as hw/scripts/h200_peak_cause.sh writes them), in
    scenario and semaphore order."""
    paths = sorted(session.glob("all/*/semaphore-*/validate.json")) or sorted(session.glob("*/*/validate.json"))
    files = [json.load(open(p)) for p in paths]
    return sorted(files, key=lambda v: (v["scenario"], v["semaphore"]))


def rank_from_top(values, i):
    return 1 + sum(v > values[i] for v in values)


def peak_misses(session):
    session = Path(session)
    calibration = json.load(open(session / "calibration.json"))
    pace = calibration["spread"]["host_pace"]
    per_callback = {w: relay_wait_chance(calibration, w) for w in WAIT_LEVELS}
    o = ["# H200: the trials whose peak fell outside the simulated range, and why (analysis)\n",
         f"Generated by `hw/scripts/peak_misses.py {os.path.relpath(session.resolve(), REPO)}` from the "
         "validate.json files below this folder and `calibration.json`. For each callback or poll combination (its "
         "`callback_trials`) whose "
         "trials' peak range is not inside the calibrated prediction's (`sim`), each trial outside it: its host cadence "
         "over the run's median trial's (`host_cadence_by_trial`; rank 1 is the run's slowest), and its longest wait "
         "from a callback's hand-over to the relay's body (`callback_trials`' `wake_max_ns`; rank 1 the run's longest). "
         f"The calibrated prediction draws the host's pace once a run from the calibration's host-pace spread, "
         f"{pace[0]:.2f} to {pace[-1]:.2f} of its median (p0 to p99); the host-paced prediction (`sim_host_paced`) from "
         "the run's own trials'. `sim at its pace`: the calibrated prediction played again with every host cost times "
         f"the trial's own pace (its cadence over the simulator's; `peak-misses-paced.tsv`, {PACED_SAMPLES} runs), beside the calibrated prediction's median "
         "(`peak-medians/sim-medians.tsv`). MiB.\n",
         "| scenario | semaphore | policy + guard | sim / host-paced range | trial | peak | cadence / median (rank) | "
         "longest relay wait, ms (rank) | sim at its pace: median / max |",
         "|---|---|---|---|---|---|---|---|---|"]
    at_pace = read_paced(session)
    sim_medians = read_sim_medians(session)
    sentences = []
    for v, r, i, peaks in outside_trials(session):
        lo, hi = r["sim"]["peak_bytes_in_use_min"], r["sim"]["peak_bytes_in_use_max"]
        host_paced = r.get("sim_host_paced")
        cadence = r["host_cadence_by_trial"]
        waits = [t["wake_max_ns"] for t in r["callback_trials"]]
        ratio = cadence[i] / median(cadence)
        key = (v["scenario"], v["semaphore"], r["policy"], r["guard"], i)
        row = at_pace.get(key)
        o.append(f"| {v['scenario']} | {v['semaphore']} | {r['policy']} + {r['guard']} | {mib(lo)} - {mib(hi)} / "
                 + (f"{mib(host_paced['peak_bytes_in_use_min'])} - {mib(host_paced['peak_bytes_in_use_max'])}"
                    if host_paced else "-")
                 + f" | {i} | {mib(peaks[i])} | {ratio:.2f} ({rank_from_top(cadence, i)}) | "
                 f"{waits[i] / 1e6:.2f} ({rank_from_top(waits, i)}) | "
                 + (f"{row['pace']}: {mib(int(row['median']))} / {mib(int(row['max']))}" if row else "-") + " |")
        outside = {j for j, p in enumerate(peaks) if p < lo or p > hi}
        as_long = sum(w >= waits[i] for j, w in enumerate(waits) if j not in outside)
        where = f"{v['scenario']} at semaphore {v['semaphore']}, {r['policy']} + {r['guard']}"
        below = peaks[i] < lo
        if ratio > pace[-1] and below:
            cause = (f"its host ran {ratio:.2f} times the run's median trial's cadence, beyond the calibration's "
                     f"p99 pace of {pace[-1]:.2f}")
            calibrated = sim_medians.get(key[:4])
            if row and calibrated:
                a, b, c = calibrated, int(row["median"]), peaks[i]
                share = "all" if b <= c else f"{100 * max(0, a - b) / (a - c):.0f} %"
                cause += (f"; with every host cost times its pace ({row['pace']}), the simulated median peak goes from "
                          f"{mib(a)} to {mib(b)} MiB against this trial's {mib(c)}: the slower host accounts for {share} "
                          "of that gap")
        elif waits[i] >= WAIT_LEVELS[0] and not below:
            cause = (f"a callback waited {waits[i] / 1e6:.2f} ms from its hand-over to the relay's body "
                     f"({as_long} of the run's trials inside the range waited at least as long)")
        else:
            cause = (f"neither a host slower than the calibration's p99 pace ({ratio:.2f} of the median) nor "
                     f"a relay wait of 1 ms or more ({waits[i] / 1e6:.2f})")
        inside_paced = host_paced and host_paced["peak_bytes_in_use_min"] <= peaks[i] <= host_paced["peak_bytes_in_use_max"]
        sentences.append(f"- {where}, trial {i} ({mib(peaks[i])} MiB, {'below' if below else 'above'} the range): "
                         f"{cause}; " + ("inside the host-paced prediction's range." if inside_paced
                                         else "outside the host-paced prediction's range too."))
    processes = []
    for v in passes(session):
        waits_by_trial = [(t["wake_max_ns"], t["callbacks"]) for r in v["runs"] for t in r.get("callback_trials", [])]
        if waits_by_trial:
            processes.append((v["scenario"], v["semaphore"], v["process_pace"]["pace"], waits_by_trial))
    if not sentences:
        o.append("| - | - | - | - | - | - | - | - | - |")
    o.append("")
    trials = sum(len(r.get("callback_trials", [])) for v in passes(session) for r in v["runs"])
    o += sentences or [f"All {trials} callback trials' peaks lay inside the simulated range."]
    o += ["", "Relay waits by process: the share of its callback trials (all callback policies) with a wait of at "
          "least 1 ms and 2.5 ms from a hand-over to the relay's body, beside the calibration's chance of one in a "
          "trial of as many callbacks (each marker behind device work: `callback_after_op_ns` less "
          "`callback_handover_ns`, each drawn with its tail, as the simulator does; a wait behind another callback's body "
          "left out). `process pace` is the "
          "process's host-pace workload against the calibration's (`process_pace`, not applied).\n",
          "| scenario | semaphore | process pace | callback trials | >= 1 ms (calibration) | >= 2.5 ms (calibration) |",
          "|---|---|---|---|---|---|"]
    shares = {w: [] for w in WAIT_LEVELS}
    for scenario, semaphore, process_pace, waits in processes:
        cells = []
        for w in WAIT_LEVELS:
            seen = sum(x >= w for x, _ in waits) / len(waits)
            expected = sum(1 - (1 - per_callback[w]) ** n for _, n in waits) / len(waits)
            shares[w].append((seen, expected))
            cells.append(f"{100 * seen:.1f} % ({100 * expected:.1f} %)")
        o.append(f"| {scenario} | {semaphore} | {process_pace:.2f} | {len(waits)} | " + " | ".join(cells) + " |")
    if processes:
        seen = [s for s, _ in shares[WAIT_LEVELS[0]]]
        expected = [e for _, e in shares[WAIT_LEVELS[0]]]
        o += ["", f"Trials with a relay wait of at least 1 ms: {span(seen, 0.01, '.1f')} % by process, against the "
              f"calibration's {span(expected, 0.01, '.1f')} %; above it in {sum(s > e for s, e in zip(seen, expected))} "
              f"of {len(seen)} processes. Their rank correlation with the process pace: "
              f"{rank_correlation([pace for _, _, pace, _ in processes], seen):+.2f} (Spearman; +1: the slower the "
              "process's host, the more of its trials waited)."]
    return "\n".join(o).rstrip() + "\n"


def refusal(folder, binary=None):
    """Why FOLDER (and BINARY) cannot be used (None: they can): exit status 2 and this message rather
    than a traceback."""
    folder = Path(folder)
    if not (folder / "calibration.json").is_file():
        return f"{folder}: no calibration.json (the session's calibration)"
    spread = json.load(open(folder / "calibration.json")).get("spread", {})
    missing = [k for k in ("host_pace", "callback_after_op_ns", "callback_handover_ns") if k not in spread]
    if missing:
        return f"{folder}/calibration.json: no spread of {', '.join(missing)} (calibrated before the hand-over split)"
    if binary is not None and not os.access(binary, os.X_OK):
        return f"{binary}: not an executable allocsim binary"
    if not passes(folder):
        return f"{folder}: no validate.json under all/<scenario>/semaphore-<n>/ or <run>/<combination>/"
    return None


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    paced_run = len(args) == 3 and args[0] == "paced"
    folder = args[1] if paced_run else args[0] if len(args) == 1 else None
    why = refusal(folder, args[2] if paced_run else None) if folder else None
    if why:
        print(f"peak_misses.py: {why}", file=sys.stderr)
        return 2
    if len(args) == 3 and args[0] == "paced":
        return write_or_check(Path(args[1]) / "peak-misses-paced.tsv", paced(args[1], args[2]), check)
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    return write_or_check(Path(args[0]) / "peak-misses.md", peak_misses(args[0]), check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
