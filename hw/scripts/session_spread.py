#!/usr/bin/env python3
"""How far one execution's corrupted fraction moves between H200 sessions (issue 17).

Every committed per-execution pass whose summary names an H200 ran the same eight points with the
same command shape (400 trials a point, immediate + none). This sets the passes side by side, per
point at the execution whose hardware fraction ranges widest over them: the hardware's fraction in
each session, and how often each of the pass's predictions fell within 20 pp of it:

  calibrated      validate.json's `sim`: the costs and pace the session's calibration recorded
  trials' pace    `sim_host_paced`: the same, each run's host pace drawn from the counted trials'
                  own launch cadence (measured beside the outcomes, none of which it uses)
  warm-up's pace  `sim_warmup_paced`: the pace of uncounted trials run first in the same process

A pass whose trials ran in several processes (<point>/process-<i>/) is pooled, and its fraction's
standard error is computed between processes (clustered), since trials in one process share its pace.

  session_spread.py OUT.md [--check]

With --check, OUT.md must already hold what the files give (exit status 1 otherwise).
"""
import argparse
import json
import math
import statistics
import sys
from pathlib import Path

from generated_file import write_or_check
from rank_correlation import rank_correlation

ROOT = Path(__file__).resolve().parents[2]
HW = ROOT / "results" / "hw"
POINTS = [("seed-repro", 1), ("seed-repro", 2), ("seed-repro", 4), ("seed-repro", 32),
          ("conv-autotune", 1), ("conv-autotune", 2), ("conv-autotune", 8), ("conv-autotune", 32)]
PREDICTIONS = [("sim", "calibrated"), ("sim_host_paced", "trials' pace"), ("sim_warmup_paced", "warm-up's pace")]
P50 = 3  # the median's index in a pace's quantiles (kSpreadLevels, sim/include/allocsim/core/platform_spread.h)
TOLERANCE = 0.20  # issue 17's per-execution acceptance
DETAIL_RANGE = 0.50  # a point whose widest execution ranges this far over the sessions gets its sessions listed


def h200_sessions():
    return [d.parent.name for d in sorted(HW.glob("*/per-execution"))
            if (d / "validate.md").exists() and "Device: NVIDIA H200" in (d / "validate.md").read_text()]


def point_files(session, scenario, semaphore):
    folder = HW / session / "per-execution" / scenario / f"semaphore-{semaphore}"
    return [f for f in [folder / "validate.json"] if f.exists()] + sorted(folder.glob("process-*/validate.json"))


def at_path(run, key):
    """run's prediction at `key`, a name or a path of names joined by "/" ("sim_pace_band/low"); None: none."""
    for part in key.split("/"):
        run = run.get(part) if isinstance(run, dict) else None
    return run


def read_point(files, keys=tuple(k for k, _ in PREDICTIONS)):
    """One session's point: trials, hardware fraction and each prediction's (`keys`, names or at_path's paths)
    probability per execution."""
    trials, corrupted, per_file, predicted, paces = 0, None, [], {}, []
    for f in files:
        run = json.loads(f.read_text())["runs"][0]
        n, by_exec = run["trials"], run["corrupted_by_execution"]
        trials += n
        corrupted = [a + b for a, b in zip(corrupted or [0] * len(by_exec), by_exec)]
        per_file.append((n, by_exec))
        for key in keys:
            prediction = at_path(run, key)
            if prediction is not None:
                p = [m / prediction["runs"] for m in prediction["manifest_by_execution"]]
                predicted.setdefault(key, []).append((n, p))
        if run.get("sim_host_paced", {}).get("host_pace"):
            paces.append(run["sim_host_paced"]["host_pace"][P50])
    point = {"files": len(files), "trials": trials, "hw": [c / trials for c in corrupted], "per_file": per_file,
             "pace": statistics.median(paces) if len(paces) == len(files) else None, "predicted": {}}
    for key, parts in predicted.items():
        if len(parts) == len(files):  # every process predicted it: weighted by its trials
            point["predicted"][key] = [sum(n * p[e] for n, p in parts) / trials for e in range(len(point["hw"]))]
    return point


def between_process_se(point, e):
    """The pooled fraction's clustered standard error (processes as clusters); None for one process."""
    k = len(point["per_file"])
    if k < 2:
        return None
    f, n_all = point["hw"][e], point["trials"]
    return math.sqrt(k / (k - 1) * sum((n * (c[e] / n - f)) ** 2 for n, c in point["per_file"]) / n_all ** 2)


def spearman(xs, ys):
    """None where too few sessions measured the pace to rank (rank_correlation gives 0 without spread)."""
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return rank_correlation(xs, ys)


def pct(x):
    return f"{100 * x:.1f}%"


def analyse():
    sessions = h200_sessions()
    summary, details = [], []
    for scenario, semaphore in POINTS:
        points = [(s, read_point(fs)) for s in sessions if (fs := point_files(s, scenario, semaphore))]
        if not points:
            continue
        executions = len(points[0][1]["hw"])
        spread = [max(p["hw"][e] for _, p in points) - min(p["hw"][e] for _, p in points) for e in range(executions)]
        e = max(range(executions), key=lambda i: (spread[i], -i))
        hw = [p["hw"][e] for _, p in points]
        within = {}
        for key, _ in PREDICTIONS:
            diffs = [p["predicted"][key][e] - p["hw"][e] for _, p in points if key in p["predicted"]]
            within[key] = (sum(abs(d) <= TOLERANCE + 1e-12 for d in diffs), len(diffs))
        paced = [(p["pace"], p["hw"][e]) for _, p in points if p["pace"] is not None]
        rho = spearman([a for a, _ in paced], [b for _, b in paced])
        summary.append((scenario, semaphore, e, len(points), min(hw), statistics.median(hw), max(hw), within, rho,
                        len(paced)))
        if spread[e] >= DETAIL_RANGE:
            details.append((scenario, semaphore, e, sorted(points, key=lambda sp: (sp[1]["hw"][e], sp[0]))))
    return sessions, summary, details


def markdown(sessions, summary, details):
    lines = ["# One execution's corrupted fraction across the H200 sessions", "",
             "Generated by `hw/scripts/session_spread.py` (do not edit by hand) from every committed per-execution "
             f"pass whose summary names an H200 ({len(sessions)} sessions). Per point, the execution whose hardware "
             "fraction (corrupted trials over trials) ranges widest over the sessions; how many sessions' predictions "
             f"lie within {round(100 * TOLERANCE)} pp of their own hardware fraction there, by prediction (a session "
             "counts where it made that prediction); and the rank correlation over the sessions between the counted "
             "trials' median host pace and the hardware's fraction.", "",
             "| scenario | semaphore | execution | sessions | hw min / median / max | "
             + " | ".join(f"{n}: within {round(100 * TOLERANCE)} pp" for _, n in PREDICTIONS)
             + " | Spearman (pace, hw) |",
             "|---|---|---|---|---|" + "---|" * len(PREDICTIONS) + "---|"]
    for scenario, semaphore, e, n, lo, med, hi, within, rho, n_paced in summary:
        cells = [f"{within[k][0]} of {within[k][1]}" for k, _ in PREDICTIONS]
        corr = "—" if rho is None else f"{rho:+.2f} ({n_paced})"
        lines.append(f"| {scenario} | {semaphore} | {e} | {n} | {pct(lo)} / {pct(med)} / {pct(hi)} | "
                     + " | ".join(cells) + f" | {corr} |")
    lines.append("")
    widest = max(summary, key=lambda r: (r[6] - r[4], r[0], r[1]))
    scenario, semaphore, e, n, lo, _, hi, within, _, _ = widest
    lines.append(f"Widest: {scenario} at semaphore {semaphore}, execution {e}, corrupted in {pct(lo)} to {pct(hi)} "
                 f"of the trials over {n} sessions; there the calibrated prediction lies within "
                 f"{round(100 * TOLERANCE)} pp in {within['sim'][0]} of {within['sim'][1]} sessions and the "
                 f"trials'-pace prediction in {within['sim_host_paced'][0]} of {within['sim_host_paced'][1]}.")
    for scenario, semaphore, e, points in details:
        lines += ["", f"## {scenario}, semaphore {semaphore}, execution {e}: every session", "",
                  "Sorted by the hardware's fraction. SE: the pooled fraction's standard error between its processes "
                  "(— where one process ran every trial). Pace: the counted trials' median host pace over the "
                  "simulator's.", "",
                  "| session | processes | trials | hw | SE | " + " | ".join(n for _, n in PREDICTIONS) + " | pace |",
                  "|---|---|---|---|---|" + "---|" * len(PREDICTIONS) + "---|"]
        for session, p in points:
            se = between_process_se(p, e)
            cells = [pct(p["predicted"][k][e]) if k in p["predicted"] else "—" for k, _ in PREDICTIONS]
            se_cell = "—" if se is None else f"{100 * se:.1f} pp"
            pace_cell = "—" if p["pace"] is None else f"{p['pace']:.2f}"
            lines.append(f"| {session} | {p['files']} | {p['trials']} | {pct(p['hw'][e])} | {se_cell} | "
                         + " | ".join(cells) + f" | {pace_cell} |")
        pooled = [between_process_se(p, e) for _, p in points if p["files"] > 1]
        if pooled:
            lines += ["", f"Between-process standard error of the pooled sessions here: "
                          f"{', '.join(f'{100 * s:.1f}' for s in pooled)} pp; the sessions' fractions span "
                          f"{pct(points[0][1]['hw'][e])} to {pct(points[-1][1]['hw'][e])}."]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--check", action="store_true", help="fail unless OUT already holds what the files give")
    args = parser.parse_args()
    sessions, summary, details = analyse()
    if not summary:
        raise SystemExit("no committed H200 per-execution pass under results/hw")
    return write_or_check(args.out, markdown(sessions, summary, details), args.check)


if __name__ == "__main__":
    sys.exit(main())
