#!/usr/bin/env python3
"""The calibrated prediction as a band over the host's pace, against every H200 session (issue 17).

On the H200 the host ran one session's trials at one pace and the next session's at another, and an
execution on the edge followed it: seed-repro's execution 1 at semaphore 32 corrupted in 2.5 % to
99.8 % of a session's trials (results/hw/session-spread/knife-edge.md). One calibrated probability
cannot be near all of them. What a calibration can say without any of the session's own timing is
where the session may land: its runs played again with every host-pace draw shifted to the lowest
and to the highest pace the calibrating process's own trials ran at (its host_pace p0 and p99 over
its median; `allocsim-hw repredict --pace calibration --release calibration --pace-band`). The
band of an execution is the lowest to the highest of the three predictions (the pass's own, `sim`,
and the two shifted ones). For every committed per-execution pass on an H200 this counts, per point,
the sessions whose hardware fraction lies within 20 pp on every execution, of the calibrated
prediction and of the band, and lists the sessions at the point whose widest execution ranges
furthest over them.

  pace_band.py OUT.md --binary ALLOCSIM_HW [--check]

With --check, OUT.md must already hold what the files give (exit status 1 otherwise).
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from generated_file import write_or_check
from session_spread import HW, POINTS, ROOT, TOLERANCE, h200_sessions, pct, point_files, read_point

ENDS = ("low", "high")  # sim_pace_band's (hw/include/allocsim/hw/validate_report.h, PaceBand)


def has_pace(session):
    """Whether the session's calibration records a host pace to take the band's ends from."""
    cal = HW / session / "calibration.json"
    return cal.exists() and bool(json.loads(cal.read_text()).get("spread", {}).get("host_pace"))


def repredict(binary, session, out):
    """repredict --pace-band of the session's per-execution pass; why not, where it refuses (its message
    without a list of the keys it knows, and with paths from the repository's root, so the file is the
    same in any clone)."""
    done = subprocess.run([str(Path(binary).resolve()), "repredict", f"results/hw/{session}/per-execution", "--platform",
                           f"results/hw/{session}/calibration.json", "--out", str(out), "--pace", "calibration",
                           "--release", "calibration", "--pace-band"],
                          cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode == 0:
        return None
    return done.stderr.strip().splitlines()[-1].removeprefix("allocsim-hw: ").split(" (known:")[0]


def distance(x, lo, hi):
    return 0.0 if lo <= x <= hi else min(abs(x - lo), abs(x - hi))


def session_points(binary, session, tmp):
    """The band's factors and, per point: hardware fraction, calibrated prediction and band per execution
    (a string: why repredict refused)."""
    out = Path(tmp) / session
    refused = repredict(binary, session, out)
    if refused:
        return refused
    points, factors = {}, None
    for scenario, semaphore in POINTS:
        src = point_files(session, scenario, semaphore)
        if not src:
            continue
        again = [out / f.relative_to(HW / session / "per-execution") for f in src]
        if factors is None:
            band = json.loads(again[0].read_text())["runs"][0]["sim_pace_band"]
            factors = {end: band[f"{end}_factor"] for end in ENDS}
        own = read_point(src, ("sim",))
        predicted = read_point(again, tuple(f"sim_pace_band/{end}" for end in ENDS))["predicted"]
        ends = [predicted[f"sim_pace_band/{end}"] for end in ENDS]
        calibrated = own["predicted"]["sim"]
        band = [(min(c, *(e[i] for e in ends)), max(c, *(e[i] for e in ends))) for i, c in enumerate(calibrated)]
        points[(scenario, semaphore)] = {"hw": own["hw"], "calibrated": calibrated, "band": band,
                                         "ends": ends, "pace": own["pace"]}
    return factors, points


def analyse(binary):
    sessions, refused, no_pace = {}, {}, []
    with tempfile.TemporaryDirectory() as tmp:
        all_sessions = h200_sessions()
        for i, s in enumerate(all_sessions, 1):
            print(f"pace_band: {s} ({i} of {len(all_sessions)})", file=sys.stderr)  # minutes in all: show the way
            if not has_pace(s):
                no_pace.append(s)
                continue
            got = session_points(binary, s, tmp)
            if isinstance(got, str):
                refused[s] = got
            else:
                sessions[s] = got
    return sessions, refused, no_pace


def markdown(sessions, refused, no_pace):
    tol = round(100 * TOLERANCE)
    lines = ["# The calibrated prediction as a band over the host's pace, on every H200 session", "",
             "Generated by `hw/scripts/pace_band.py` (do not edit by hand). Each committed per-execution pass on an "
             "H200 whose calibration records a host pace, predicted again with every host-pace draw shifted to the "
             "calibration's own lowest (p0) and highest (p99) pace over its median "
             "(`allocsim-hw repredict --pace calibration --release calibration --pace-band`). An execution's band "
             "runs from the lowest to the highest of the pass's calibrated prediction and the two shifted ones. "
             f"\"within {tol} pp\": the hardware's fraction of corrupted trials lies within {tol} pp of the "
             "prediction (of the band's nearer end, or inside it) on every execution of the point.", "",
             f"Sessions: {len(sessions)} predicted; "
             + (f"{len(no_pace)} whose calibration records no host pace ({', '.join(no_pace)}); " if no_pace else "")
             + (f"{len(refused)} whose calibration this binary refuses to read "
                f"({'; '.join(f'{s}: {why}' for s, why in sorted(refused.items()))})." if refused else "none refused."),
             "",
             f"| scenario | semaphore | sessions | calibrated: within {tol} pp | band: within {tol} pp | "
             "widest execution | its band's median width |",
             "|---|---|---|---|---|---|---|"]
    summary = []
    for scenario, semaphore in POINTS:
        rows = [(s, pts[(scenario, semaphore)]) for s, (_, pts) in sorted(sessions.items()) if (scenario, semaphore) in pts]
        if not rows:
            continue
        n_exec = len(rows[0][1]["hw"])
        cal = sum(all(abs(h - c) <= TOLERANCE + 1e-12 for h, c in zip(p["hw"], p["calibrated"])) for _, p in rows)
        band = sum(all(distance(h, *b) <= TOLERANCE + 1e-12 for h, b in zip(p["hw"], p["band"])) for _, p in rows)
        spread = [max(p["hw"][e] for _, p in rows) - min(p["hw"][e] for _, p in rows) for e in range(n_exec)]
        e = max(range(n_exec), key=lambda i: (spread[i], -i))
        width = statistics.median(p["band"][e][1] - p["band"][e][0] for _, p in rows)
        summary.append((scenario, semaphore, len(rows), cal, band, e, spread[e], rows))
        lines.append(f"| {scenario} | {semaphore} | {len(rows)} | {cal} | {band} | {e} | {100 * width:.1f} pp |")
    lines.append("")
    cal_all = sum(r[3] for r in summary)
    band_all = sum(r[4] for r in summary)
    n_all = sum(r[2] for r in summary)
    lines.append(f"Over the {len(summary)} points and their sessions: {cal_all} of {n_all} session-points within "
                 f"{tol} pp on every execution calibrated, {band_all} of {n_all} within {tol} pp of the band.")
    scenario, semaphore, _, _, _, e, _, rows = max(summary, key=lambda r: (r[6], r[0], r[1]))
    lines += ["", f"## {scenario}, semaphore {semaphore}, execution {e}: every session", "",
              "Sorted by the hardware's fraction. Low and high: the prediction with the pace shifted to the "
              "calibration's p0 and p99 (the factor in brackets). Trials' pace: the counted trials' median host "
              "pace over the simulator's (— where the file has none), which no prediction here uses.", "",
              "| session | hw | calibrated | low | high | band | within 20 pp of the band | trials' pace |",
              "|---|---|---|---|---|---|---|---|"]
    missed = []
    for s, p in sorted(rows, key=lambda sp: (sp[1]["hw"][e], sp[0])):
        factors = sessions[s][0]
        lo, hi = p["band"][e]
        ok = distance(p["hw"][e], lo, hi) <= TOLERANCE + 1e-12
        if not ok:
            missed.append(s)
        pace = "—" if p["pace"] is None else f"{p['pace']:.2f}"
        lines.append(f"| {s} | {pct(p['hw'][e])} | {pct(p['calibrated'][e])} | {pct(p['ends'][0][e])} "
                     f"({factors['low']:.2f}) | {pct(p['ends'][1][e])} ({factors['high']:.2f}) | {pct(lo)} to {pct(hi)} "
                     f"| {'yes' if ok else 'no'} | {pace} |")
    lines += ["", f"Here the band lies within {tol} pp of the hardware in {len(rows) - len(missed)} of {len(rows)} "
                  f"sessions" + (f"; not in {', '.join(missed)}." if missed else ".")]
    by_name = dict(rows)
    outside = [(s, by_name[s]["pace"], sessions[s][0]) for s in missed if by_name[s]["pace"] is not None and p["pace"] is not None
               and not sessions[s][0]["low"] <= by_name[s]["pace"] <= sessions[s][0]["high"]]
    if missed:
        lines[-1] += (f" In {len(outside)} of those {len(missed)} the counted trials' pace lay outside the calibration's "
                      "p0 to p99 (" + "; ".join(f"{s}: {pace:.2f}, against {f['low']:.2f} to {f['high']:.2f}"
                                                for s, pace, f in outside) + ").")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--binary", required=True, help="allocsim-hw, for its repredict")
    parser.add_argument("--check", action="store_true", help="fail unless OUT already holds what the files give")
    args = parser.parse_args()
    sessions, refused, no_pace = analyse(args.binary)
    if not sessions:
        raise SystemExit("no committed H200 per-execution pass under results/hw has a calibration to predict from")
    return write_or_check(args.out, markdown(sessions, refused, no_pace), args.check)


if __name__ == "__main__":
    sys.exit(main())
