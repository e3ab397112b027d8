#!/usr/bin/env python3
"""The hardware validation's headline: SESSION/headline.md, which README.md quotes.

Usage: hw/scripts/validation_headline.py SESSION [AGAIN ...] [--check]

SESSION is a results/hw folder with both passes of hw/scripts/h200_passes.sh: per-execution/ (the
program under immediate + none, 400 trials a point) and all/ (every policy x guard). Each AGAIN is a
folder whose all/ is the every-policy pass run again with SESSION's calibration, in new processes:
its peak counts follow, since one process's host pace moves them (h200-deep-tail-2). Every number
comes from those passes' files. The counts are the ones `allocsim-hw summarize` computed into each
pass's validate.md (tests/hw checks those against the validate.json files). The points and trial
counts come from the validate.json files themselves. Nothing is typed in. With --check the committed
headline.md must already be exactly this (generated_file.py); scripts/quote_headline.py then copies
it into README.md.
"""
import json
import re
import sys
from pathlib import Path

from generated_file import write_or_check

# The sentences of validate.md that hold the counts (hw/src/host/validate_summary.cpp writes them).
PACED = re.compile(r"^With the measured pace, (\d+) of (\d+) points lie within (\d+) pp overall and (\d+) of \d+ "
                   r"within (\d+) pp on every execution; calibrated \(the last column's prediction\), (\d+) and (\d+)\.$",
                   re.M)
PEAKS = re.compile(r"^The hardware's range lies inside the simulator's for (\d+) of these (\d+) combinations;.*"
                   r"Inside the host-paced prediction's: (\d+) of (\d+);", re.M)


def sentence(pattern, path):
    found = pattern.findall(path.read_text())
    if len(found) != 1:
        sys.exit(f"validation_headline: {path}: expected one summary sentence matching {pattern.pattern!r}, "
                 f"found {len(found)}")
    return [int(x) for x in found[0]]


def runs(folder):
    """Every run of every validate.json under folder: (scenario, semaphore, run)."""
    out = []
    for f in sorted(folder.glob("*/semaphore-*/validate.json")):
        v = json.loads(f.read_text())
        for r in v["runs"]:
            out.append((v["scenario"], v["semaphore"], r))
    if not out:
        sys.exit(f"validation_headline: no validate.json under {folder}")
    return out


def one(values, what, folder):
    values = set(values)
    if len(values) != 1:
        sys.exit(f"validation_headline: {folder}: {what} differs between runs ({sorted(values)})")
    return values.pop()


def points_text(per_exec):
    by_scenario = {}
    for scenario, semaphore, _ in per_exec:
        by_scenario.setdefault(scenario, set()).add(semaphore)
    return " and ".join(f"{s} at semaphores {', '.join(str(x) for x in sorted(sems))}"
                        for s, sems in sorted(by_scenario.items(), key=lambda kv: kv[0], reverse=True))


def peaks_again(session, again):
    again = Path(again)
    if (again / "calibration.json").read_bytes() != (session / "calibration.json").read_bytes():
        sys.exit(f"validation_headline: {again}: not {session}'s calibration")
    inside, varying, paced_inside, paced_varying = sentence(PEAKS, again / "all" / "validate.md")
    name = f"results/hw/{again.name}"
    return (f"- The same every-policy pass again in new processes with the same calibration ([`{name}`]({name}/README.md)): "
            f"{inside} of {varying}; {paced_inside} of {paced_varying} with the trials' host pace.\n")


def headline(session, agains=()):
    session = Path(session)
    per_dir, all_dir = session / "per-execution", session / "all"
    per_exec, every = runs(per_dir), runs(all_dir)
    name = f"results/hw/{session.name}"
    trials = one((r["trials"] for _, _, r in per_exec), "trials", per_dir)
    all_trials = one((r["trials"] for _, _, r in every), "trials", all_dir)
    combos = len({(r["policy"], r["guard"]) for _, _, r in every})
    paced_overall, points, overall_pp, paced_execs, exec_pp, cal_overall, cal_execs = \
        sentence(PACED, per_dir / "validate.md")
    inside, varying, paced_inside, paced_varying = sentence(PEAKS, all_dir / "validate.md")
    return (
        f"- On an H200 ([`{name}`]({name}/README.md)), {points_text(per_exec)} ({points} points, {trials} trials "
        f"each): the simulator's corruption probability from the calibrated costs is within {overall_pp} pp of the "
        f"hardware's rate overall at {cal_overall} of {points} points, and within {exec_pp} pp on every execution at "
        f"{cal_execs} of {points}. Drawing the host's pace from the trials instead: {paced_overall} and "
        f"{paced_execs} of {points}.\n"
        f"- Peak in-use under each of the {combos} policy x guard combinations ({all_trials} trials a point): the "
        f"hardware's trial-to-trial range lies inside the simulated runs' range for {inside} of the {varying} "
        f"combinations whose peak varies; {paced_inside} of {paced_varying} with the trials' host pace.\n"
        + "".join(peaks_again(session, a) for a in agains))


def main(argv):
    args = [a for a in argv if a != "--check"]
    if not args:
        sys.exit(__doc__)
    text = headline(args[0], args[1:])
    return write_or_check(Path(args[0]) / "headline.md", text, "--check" in argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
