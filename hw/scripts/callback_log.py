#!/usr/bin/env python3
"""What held a validate trial's peak: `allocsim-hw validate --callback-log` files, trial by trial.

  callback_log.py summarize LOG[.gz] OUT.jsonl     one line per trial of LOG: its peak, the buffers held at
                                                   the peak, the earlier executions' among them and the
                                                   callbacks that freed those, and the trial's callbacks
                                                   handed over after a later-enqueued semaphore release
  callback_log.py keep LOG[.gz] OUT.jsonl.gz K [--highest|--lowest]
                                                   LOG's header, its first K trials of each combination and
                                                   every trial whose peak is above the combination's
                                                   commonest (with --highest: at the combination's highest
                                                   peak, when that is above the commonest; with --lowest:
                                                   below the commonest): the raw lines the analysis quotes
  callback_log.py peak-cause DIR [--check]         DIR/analysis.md from DIR/summary-*.jsonl(.gz)
                                                   (hw/scripts/h200_peak_cause.sh)
  callback_log.py peak-delays SESSION [--check]    SESSION/peak-delays.md: in an every-policy pass
                                                   (SESSION/all/*/semaphore-*/validate.json), each callback
                                                   combination with a trial above every simulated run's
                                                   peak, its trials by peak against their longest callback
                                                   delay (validate.json's callback_trials)
  callback_log.py handover-gaps DIR [--check]     DIR/handover-gaps.md: from DIR/kept-*.jsonl.gz, how far
                                                   apart HIP handed over two callbacks of one stream when the
                                                   second was enqueued before the first's hand-over, beside
                                                   the calibration's kernel-end-to-hand-over (DIR/log.txt)
  callback_log.py sim-medians OUT ALLOCSIM SESSION... [--platform FILE]
                                                   OUT/sim-medians.tsv: for each such combination below, the
                                                   simulated runs' peak median, p95 and max, by running the
                                                   ALLOCSIM binary's `run --samples` (exit 1 if a max is not
                                                   validate's); with --platform, FILE instead of each
                                                   session's calibration, unchecked
  callback_log.py peak-medians OUT SESSION... [--check]
                                                   OUT/analysis.md: over the every-policy passes of the
                                                   SESSIONs, each callback or poll combination whose peak
                                                   varies, the hardware trials' median peak against the
                                                   simulated runs' (validate.json's callback_trials and sim,
                                                   OUT/sim-medians.tsv)
  callback_log.py check-summaries DIR              exit 1 unless summarizing DIR/kept-RUN.jsonl.gz's trials
                                                   again gives their lines in DIR/summary-RUN.jsonl(.gz)

The log's format is in hw/include/allocsim/hw/timeline.h. `summarize` and `keep` run on the device
machine, where the whole log is (it is too large to bring back); `peak-cause` runs on what came back,
and with --check only compares (exit 1 on a difference), which tests/hw runs so the committed analysis
stays what its data says. Standard library only.
"""
import collections
import gzip
import json
import os
import sys
from pathlib import Path

from generated_file import write_or_check

REPO = Path(__file__).resolve().parents[2]


def lines(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def freeing_callback(callbacks, at_ns):
    """The callback whose body was running when a chunk went back to its pool at at_ns (None: the host freed it)."""
    for c in callbacks:
        if c["locked_ns"] <= at_ns <= c["done_ns"]:
            return c
    return None


def trial_summary(t):
    """What held trial t's peak, and its callbacks handed over out of their enqueue order."""
    callbacks, memory = t["host_callbacks"], t["memory"]
    peak_at = t["peak_in_use_at_ns"]
    held, allocated_at, freed = {}, {}, {}
    for i, m in enumerate(memory):
        # At the peak: what came before it, and the allocation that made it when the log stamped
        # it just after the pool's sample (binaries before 2026-12-03 did): a later allocation
        # straight after the peak would have raised in-use above it.
        at_peak = m["at_ns"] <= peak_at or (m["allocated"] and (i == 0 or memory[i - 1]["at_ns"] <= peak_at))
        if m["allocated"]:
            allocated_at[m["buffer"]] = m["at_ns"]
            if at_peak:
                held[m["buffer"]] = m["bytes"]
        else:
            freed[m["buffer"]] = m
            if m["at_ns"] <= peak_at:
                held.pop(m["buffer"], None)
    # The host's last semaphore unit before the peak began the execution the peak is in; a buffer
    # allocated before that unit was acquired belongs to an earlier execution.
    acquired = [w["acquired_ns"] for w in t["semaphore_waits"] if w["acquired_ns"] <= peak_at]
    execution_start = acquired[-1] if acquired else 0
    releases = [c for c in callbacks if c["what"] == "semaphore-release"]
    earlier = []
    for name in sorted(held):
        if allocated_at[name] >= execution_start:
            continue
        item = {"buffer": name}
        f = freed.get(name)
        c = freeing_callback(callbacks, f["at_ns"]) if f else None
        if c:
            # Callbacks of other streams enqueued after it and handed over before it.
            overtaking = [o for o in callbacks if o["stream"] != c["stream"] and o["enqueued_ns"] > c["enqueued_ns"]
                          and o["handed_over_ns"] < c["handed_over_ns"]]
            item["overtaken_by"] = len(overtaking)
            if overtaking:
                item["overtaken_lag_ns"] = c["handed_over_ns"] - min(o["handed_over_ns"] for o in overtaking)
            # The unit the host waited for: the last semaphore release done before execution_start.
            before = [r for r in releases if r["done_ns"] <= execution_start]
            item.update({"freed_at_ns": f["at_ns"], "by": c["what"], "stream": c["stream"],
                         "enqueued_ns": c["enqueued_ns"], "handed_over_ns": c["handed_over_ns"],
                         "taken_up_ns": c["taken_up_ns"]})
            if before:
                item["release_enqueued_ns"] = before[-1]["enqueued_ns"]
                item["release_handed_over_ns"] = before[-1]["handed_over_ns"]
        earlier.append(item)
    # A free callback enqueued before a semaphore release and handed over after it, by stream, and
    # how much later (the largest such lag in the trial).
    inverted = collections.Counter()
    inverted_lag = {}
    for c in callbacks:
        if c["what"] == "semaphore-release":
            continue
        later = [r for r in releases if r["enqueued_ns"] > c["enqueued_ns"] and r["handed_over_ns"] < c["handed_over_ns"]]
        if later:
            inverted[c["stream"]] += 1
            lag = c["handed_over_ns"] - min(r["handed_over_ns"] for r in later)
            inverted_lag[c["stream"]] = max(inverted_lag.get(c["stream"], 0), lag)
    # Each execution's buffers against the host's next semaphore unit: the lead of the last one
    # freed (negative: freed after the host had the unit and went on into the next execution).
    units = [w["acquired_ns"] for w in t["semaphore_waits"]]
    leads = []
    for k in range(1, len(units)):
        mine = [b for b, at in allocated_at.items() if units[k - 1] <= at < units[k] and b in freed]
        if mine:
            last = max(mine, key=lambda b: freed[b]["at_ns"])
            leads.append((units[k] - freed[last]["at_ns"], last))
    least = min(leads) if leads else None
    return {"policy": t["policy"], "guard": t["guard"], "trial": t["trial"],
            "peak_bytes_in_use": t["peak_bytes_in_use"], "peak_in_use_at_ns": peak_at,
            "held_at_peak": sorted(held), "earlier_execution_held": earlier,
            "handed_over_after_later_release": dict(sorted(inverted.items())),
            "handed_over_after_later_release_max_lag_ns": dict(sorted(inverted_lag.items())),
            "least_free_lead_ns": least[0] if least else None, "least_free_lead_buffer": least[1] if least else None,
            "callbacks": len(callbacks)}


def summarize(log, out):
    it = lines(log)
    next(it)  # the header
    with open(out, "w") as f:
        for t in it:
            f.write(json.dumps(trial_summary(t), sort_keys=True) + "\n")
    return 0


def peak_thresholds(log, highest):
    """By combination: the commonest peak, or (highest) the peak a trial must exceed to be kept (reach)."""
    peaks = collections.defaultdict(collections.Counter)
    it = lines(log)
    next(it)
    for t in it:
        peaks[(t["policy"], t["guard"])][t["peak_bytes_in_use"]] += 1
    out = {}
    for k, v in peaks.items():
        common = v.most_common(1)[0][0]
        out[k] = max(v) - 1 if highest and max(v) > common else common
    return out


def keep(log, out, first, which=None):
    """which: None or "--highest" keeps the trials above the threshold, "--lowest" those below the commonest."""
    threshold = peak_thresholds(log, which == "--highest")
    kept = ((lambda p, t: p < t) if which == "--lowest" else (lambda p, t: p > t))
    it = lines(log)
    with gzip.open(out, "wt") as f:
        f.write(json.dumps(next(it)) + "\n")
        for t in it:
            if t["trial"] < first or kept(t["peak_bytes_in_use"], threshold[(t["policy"], t["guard"])]):
                f.write(json.dumps(t) + "\n")
    return 0


def check_summaries(folder):
    """The committed summaries are what `summarize` gives on the raw lines kept beside them."""
    folder, checked, bad = Path(folder), 0, 0
    for kept in sorted(folder.glob("kept-*.jsonl.gz")):
        run = kept.name[len("kept-"):-len(".jsonl.gz")]
        summary = next(folder.glob(f"summary-{run}.jsonl*"))
        committed = {(s["policy"], s["guard"], s["trial"]): s for s in lines(summary)}
        it = lines(kept)
        next(it)
        for t in it:
            checked += 1
            if json.loads(json.dumps(trial_summary(t), sort_keys=True)) != committed.get((t["policy"], t["guard"], t["trial"])):
                bad += 1
                print(f"{kept}: trial {t['trial']} of {t['policy']} + {t['guard']} summarizes differently", file=sys.stderr)
    print(f"{checked} kept trials summarized again, {bad} different")
    return 0 if checked and not bad else 1


def n_trials(n):
    return f"{n} trial" + ("" if n == 1 else "s")


def span(values, unit, fmt):
    """'lo to hi' of values / unit, or the one value."""
    lo, hi = format(min(values) / unit, fmt), format(max(values) / unit, fmt)
    return lo if lo == hi else f"{lo} to {hi}"


def mib(b):
    return f"{b / 1048576:g}"


def us(ns):
    return f"{ns / 1000:.0f}"


def run_facts(folder, run):
    """From DIR/RUN/validate.json, when there is one: the semaphore, and by combination the lowest and
    highest simulated peak and the trials' median host pace (launch cadence over the simulator's)."""
    path = folder / run / "validate.json"
    if not path.exists():
        return None, {}
    v = json.load(open(path))
    facts = {}
    for r in v["runs"]:
        cadence = sorted(c / r["sim"]["host_cadence_ns"] for c in r["host_cadence_by_trial"])
        facts[(r["policy"], r["guard"])] = (r["sim"]["peak_bytes_in_use_min"], r["sim"]["peak_bytes_in_use_max"],
                                            cadence[len(cadence) // 2])
    return v["semaphore"], facts


def largest_calibrated_callback_ns(folder):
    """The calibration's largest callback latency sample, idle stream or behind an op (its spread_tail's max)."""
    path = folder / "calibration.json"
    if not path.exists():
        return None
    tail = json.load(open(path)).get("spread_tail", {})
    return max((tail[k][-1] for k in ("callback_latency_ns", "callback_after_op_ns") if k in tail), default=None)


def peak_cause(folder):
    folder = Path(folder)
    rows = collections.OrderedDict()
    for path in sorted(folder.glob("summary-*.jsonl*")):
        run = path.name[len("summary-"):].split(".jsonl")[0]
        for s in lines(path):
            rows.setdefault((run, s["policy"], s["guard"]), []).append(s)
    o = ["# H200: what held the peak, trial by trial (analysis)\n",
         f"Generated by `hw/scripts/callback_log.py peak-cause {os.path.relpath(folder.resolve(), REPO)}` from the "
         "summary-*.jsonl(.gz) files beside it (`callback_log.py summarize` of each validate's `--callback-log`, run on the "
         "device machine over every counted trial) and each run's validate.json. Held at the peak: the allocations whose "
         "chunks were out of the pool when in-use bytes first reached the trial's peak; from an earlier execution: "
         "allocated before the host got the compute-semaphore unit of the execution the peak is in. Inverted: a free "
         "callback handed to the relay after a semaphore-release callback enqueued later than it. Simulated: the "
         "lowest and highest peak of the run's simulated runs; pace: the median over the trials of the host's launch "
         "cadence over the simulator's (validate.json).\n",
         "| run | policy + guard | trials | peak (MiB): trials | simulated (MiB) | pace | trials holding an earlier "
         "execution's buffer at the peak | their peaks (MiB) | trials with an inverted free (by stream) |",
         "|---|---|---|---|---|---|---|---|---|"]
    below = []  # (run's pace, trials below every simulated run's peak)
    findings = []
    for (run, policy, guard), trials in rows.items():
        semaphore, facts = run_facts(folder, run)
        peaks = collections.Counter(s["peak_bytes_in_use"] for s in trials)
        stale = [s for s in trials if s["earlier_execution_held"]]
        inverted = collections.Counter()
        for s in trials:
            for stream in s["handed_over_after_later_release"]:
                inverted[stream] += 1
        lo, hi, pace = facts.get((policy, guard), (None, None, None))
        simulated = f"{mib(lo)} - {mib(hi)}" if lo is not None else "-"
        if lo is not None:
            below.append((pace, sum(n for p, n in peaks.items() if p < lo)))
        o.append(f"| {run} | {policy} + {guard} | {len(trials)} | "
                 + ", ".join(f"{mib(p)}: {n}" for p, n in sorted(peaks.items())) + f" | {simulated} | "
                 + (f"{pace:.2f}" if pace is not None else "-") + f" | {len(stale)} | "
                 + (", ".join(sorted({mib(s['peak_bytes_in_use']) for s in stale})) or "-") + " | "
                 + (", ".join(f"{k}: {v}" for k, v in sorted(inverted.items())) or "0") + " |")
        above = hi if hi is not None else peaks.most_common(1)[0][0]
        for s in trials:
            if s["peak_bytes_in_use"] > above:
                findings.append((run, policy, guard, semaphore, s))
    o.append("\nEvery trial above every simulated run's peak (or, without a validate.json, above its combination's "
             "commonest), with what it held:\n")
    if not findings:
        o.append("None.")
    for run, policy, guard, semaphore, s in findings:
        o.append(finding_text(run, policy, guard, semaphore, s))
    o.append("\n" + conclusion(rows, [f for f in findings if f[3] == 1], largest_calibrated_callback_ns(folder),
                               [f for f in findings if f[3] != 1]))
    if any(n for _, n in below):
        low = [p for p, n in below if n]
        rest = [p for p, n in below if not n]
        o.append(f"\n{n_trials(sum(n for _, n in below))} fell below every simulated run's lowest peak, in "
                 f"{len(low)} run{'s' if len(low) > 1 else ''} whose host ran at a median pace of {span(low, 1, '.2f')}"
                 + (f", against {span(rest, 1, '.2f')} in the others" if rest else "")
                 + ": a slower host runs less far ahead, so fewer executions' buffers are out of the pool at once.")
    return "\n".join(o).rstrip() + "\n"


def finding_text(run, policy, guard, semaphore, s):
    text = (f"- {run}, {policy} + {guard}, trial {s['trial']}: {mib(s['peak_bytes_in_use'])} MiB at "
            f"{us(s['peak_in_use_at_ns'])} us, held {', '.join(s['held_at_peak'])}.")
    if semaphore != 1:  # the host waited for no release: each earlier free's two delays
        delays = [f"{e['buffer']} (handed over {us(e['handed_over_ns'] - e['enqueued_ns'])} us after its enqueue, taken "
                  f"up {us(e['taken_up_ns'] - e['handed_over_ns'])} us after that)"
                  for e in s["earlier_execution_held"] if "by" in e]
        return text + (" Earlier executions' frees: " + "; ".join(delays) + "." if delays else "")
    for e in s["earlier_execution_held"]:
        if "by" not in e:
            text += f" {e['buffer']} is an earlier execution's (no callback freed it)."
            continue
        text += (f" {e['buffer']} is an earlier execution's: its {e['by']} callback on {e['stream']} was enqueued at "
                 f"{us(e['enqueued_ns'])} us, handed over at {us(e['handed_over_ns'])} us "
                 f"({us(e['handed_over_ns'] - e['enqueued_ns'])} us later), taken up by the relay's thread at "
                 f"{us(e['taken_up_ns'])} us and freed it at {us(e['freed_at_ns'])} us")
        if "release_handed_over_ns" in e:
            order = "after" if e["handed_over_ns"] > e["release_handed_over_ns"] else "before"
            text += (f"; the semaphore release the host then waited for was enqueued at "
                     f"{us(e['release_enqueued_ns'])} us and handed over at {us(e['release_handed_over_ns'])} us, "
                     f"so the free was handed over {order} it")
        text += "."
    return text


def conclusion(rows, waited, largest_calibrated, ran_ahead):
    """The sentences the findings support, computed from them. `waited`: findings at semaphore 1, where
    the host waits for each release; `ran_ahead`: the others."""
    if not waited and not ran_ahead:
        return "No trial went above every simulated run's peak, so nothing here says what holds a higher one."
    text = ""
    if waited:
        held = [(s, e) for *_, s in waited for e in s["earlier_execution_held"] if "release_handed_over_ns" in e]
        after_release = [(s, e) for s, e in held if e["handed_over_ns"] > e["release_handed_over_ns"]
                         and e["enqueued_ns"] < e["release_enqueued_ns"]]
        trials_after = {id(s) for s, _ in after_release}
        handed_late = [(s, e) for s, e in after_release if e["handed_over_ns"] > s["peak_in_use_at_ns"]]
        taken_late = [(s, e) for s, e in after_release if e["handed_over_ns"] <= s["peak_in_use_at_ns"] < e["taken_up_ns"]]
        streams = sorted({e["stream"] for _, e in after_release})
        combos = sorted({(p, g) for _, p, g, _, _ in waited})
        total = sum(len(v) for (_, p, g), v in rows.items() if (p, g) in combos)
        inverted = sum(1 for (_, p, g), v in rows.items() if (p, g) in combos for s in v
                       if s["handed_over_after_later_release"])
        which = f"all {len(waited)}" if len(trials_after) == len(waited) else f"{len(trials_after)} of them"
        text += (f"At semaphore 1, {len(waited)} of {total} trials of " + " and ".join(f"{p} + {g}" for p, g in combos)
                 + f" went above every simulated run's peak. In {which} an earlier execution's buffer was still out of"
                 " the pool at the peak, and"
                 f" its free callback (on {', '.join(streams) or '-'}), although enqueued before the semaphore release"
                 " the host waited for, was handed to the relay after it, so the host went on into the next execution"
                 " before the free ran.")
        if handed_late:
            lags = [e["handed_over_ns"] - e["enqueued_ns"] for _, e in handed_late]
            text += (f" In {len(handed_late)} the hand-over itself came after the peak ({min(lags) / 1000:.0f} to "
                     f"{max(lags) / 1000:.0f} us after the enqueue).")
        if taken_late:
            waits = [e["taken_up_ns"] - e["handed_over_ns"] for _, e in taken_late]
            text += (f" In {len(taken_late)} it was handed over before the peak, but the relay's thread took it up only"
                     f" {min(waits) / 1000:.0f} to {max(waits) / 1000:.0f} us later, after the peak.")
        text += (f" A free handed over after a later-enqueued release happened in {inverted} of those {total} trials;"
                 " the peak rose only when the free also ran after the next execution's allocations. The simulator's"
                 " callback thread takes callbacks in the order their streams reach them, so it runs that free first.")
    if ran_ahead:
        worst = []
        for *_, s in ran_ahead:
            frees = [e for e in s["earlier_execution_held"] if "by" in e]
            worst.append(max(max(e["handed_over_ns"] - e["enqueued_ns"], e["taken_up_ns"] - e["enqueued_ns"]) for e in frees)
                         if frees else 0)
        text += ((" " if text else "") + f"Where the host ran ahead (semaphore above 1), {n_trials(len(ran_ahead))} went "
                 "above every simulated run's peak. The slowest of the earlier executions' frees out of the pool at "
                 f"{'its' if len(ran_ahead) == 1 else 'each'} peak took {span(worst, 1e6, '.2f')} ms from its enqueue to "
                 "the relay's thread taking it up")
        if largest_calibrated is not None:
            text += (f", where the calibration's largest callback delay sample was {largest_calibrated / 1e6:.2f} ms"
                     " (its spread_tail, which the simulator draws up to)")
        text += "."
        # One stall or many: frees enqueued an execution apart, handed over together.
        for *_, s in ran_ahead:
            frees = [e for e in s["earlier_execution_held"] if "by" in e]
            if len(frees) > 1:
                enq = [e["enqueued_ns"] for e in frees]
                handed = [e["handed_over_ns"] for e in frees]
                text += (f" In trial {s['trial']}, those {len(frees)} frees were enqueued over "
                         f"{(max(enq) - min(enq)) / 1e6:.2f} ms and handed over within "
                         f"{(max(handed) - min(handed)) / 1e3:.0f} us of each other: one stall of the hand-over held them all.")
    return text


def peak_delays(session):
    """Per peak level of each combination that went above its simulated range: the trials' longest
    callback delay, enqueue to body (callback_trials' delay_max_ns), beside the calibration's largest."""
    session = Path(session)
    largest = largest_calibrated_callback_ns(session)
    o = ["# H200: peaks above the simulated range against the trials' longest callback delay (analysis)\n",
         f"Generated by `hw/scripts/callback_log.py peak-delays {os.path.relpath(session.resolve(), REPO)}` from the "
         "every-policy pass's validate.json files under `all/`. For each callback combination with a trial whose peak "
         "was above every simulated run's, its trials by peak, and over them the longest callback delay of a trial "
         "(from a callback's enqueue to its body starting: `callback_trials`' `delay_max_ns`, which includes the wait "
         "for the device work it is ordered after). The calibration's largest callback delay sample (its spread_tail's "
         f"max, idle stream or behind an op, which the simulator draws up to): {largest / 1e6:.2f} ms.\n",
         "| scenario | semaphore | policy + guard | simulated (MiB) | peak (MiB): trials, longest delay (ms) |",
         "|---|---|---|---|---|"]
    sentences = []
    for path in sorted((session / "all").glob("*/semaphore-*/validate.json"),
                       key=lambda p: (p.parts[-3], int(p.parts[-2].split("-")[1]))):
        v = json.load(open(path))
        for r in v["runs"]:
            trials = r.get("callback_trials", [])
            hi = r["sim"]["peak_bytes_in_use_max"]
            above = [t for t in trials if t["peak_bytes_in_use"] > hi]
            if not above:
                continue
            by_peak = collections.defaultdict(list)
            for t in trials:
                by_peak[t["peak_bytes_in_use"]].append(t["delay_max_ns"])
            o.append(f"| {v['scenario']} | {v['semaphore']} | {r['policy']} + {r['guard']} | "
                     f"{mib(r['sim']['peak_bytes_in_use_min'])} - {mib(hi)} | "
                     + "; ".join(f"{mib(p)}: {len(d)}, {span(d, 1e6, '.2f')}" for p, d in sorted(by_peak.items())) + " |")
            rest = [t["delay_max_ns"] for t in trials if t["peak_bytes_in_use"] <= hi]
            mine = [t["delay_max_ns"] for t in above]
            where = f"{v['scenario']} at semaphore {v['semaphore']}, {r['policy']} + {r['guard']}"
            if rest and min(mine) > max(rest):
                sentences.append(f"{where}: the {n_trials(len(above))} above the simulated range had the longest callback "
                                 f"delays of all {len(trials)} ({span(mine, 1e6, '.2f')} ms; every other trial's at most "
                                 f"{max(rest) / 1e6:.2f})" + (f", beyond the calibration's largest {largest / 1e6:.2f} ms"
                                                              if min(mine) > largest else "") + ".")
            else:
                sentences.append(f"{where}: the {n_trials(len(above))} above the simulated range had longest callback "
                                 f"delays of {span(mine, 1e6, '.2f')} ms, while the other trials' reached "
                                 f"{max(rest) / 1e6:.2f} ms: not a longer delay than theirs.")
    o.append("")
    o += sentences or ["No trial went above every simulated run's peak."]
    return "\n".join(o).rstrip() + "\n"


def median(values):
    v = sorted(values)
    return v[len(v) // 2]


def varying_callback_runs(session):
    """(validate.json, its run) for each callback or poll combination of SESSION's every-policy pass whose
    peak varied between trials, in scenario and semaphore order."""
    for path in sorted((Path(session) / "all").glob("*/semaphore-*/validate.json"),
                       key=lambda p: (p.parts[-3], int(p.parts[-2].split("-")[1]))):
        v = json.load(open(path))
        for r in v["runs"]:
            peaks = [t["peak_bytes_in_use"] for t in r.get("callback_trials", [])]
            if peaks and min(peaks) != max(peaks):
                yield v, r, peaks


SIM_MEDIAN_COLUMNS = ["session", "scenario", "semaphore", "policy", "guard", "samples", "median", "p95", "max"]


def sim_medians(out, sessions, binary, platform=None):
    """OUT/sim-medians.tsv: each varying combination's simulated peak median, p95 and max, from `allocsim
    run --samples` with its session's calibration and validate's run count (validate.json keeps only its
    first run's peak and the range). Exit 1 if a run's max differs from validate's: then it is not the
    same prediction. With `platform`, that file instead of each session's calibration (another model's
    prediction of the same trials), and no such check."""
    import subprocess
    import tempfile
    rows, mismatched = ["\t".join(SIM_MEDIAN_COLUMNS)], 0
    with tempfile.TemporaryDirectory() as tmp:
        for session in sessions:
            name = Path(session).name
            for v, r, _ in varying_callback_runs(session):
                out_json = Path(tmp) / "run.json"
                subprocess.run([binary, "run", v["scenario"], "--semaphore", str(v["semaphore"]), "--policy",
                                r["policy"], "--guard", r["guard"], "--samples", str(r["sim"]["runs"]), "--platform",
                                str(platform or Path(session) / "calibration.json"), "--json", str(out_json),
                                "--progress", "off"],
                               check=True, stdout=subprocess.DEVNULL)
                q = json.load(open(out_json))["peak_bytes_in_use"]
                if platform is None and q["max"] != r["sim"]["peak_bytes_in_use_max"]:
                    mismatched += 1
                    print(f"{name} {v['scenario']} {v['semaphore']} {r['policy']} + {r['guard']}: max {q['max']} "
                          f"against validate's {r['sim']['peak_bytes_in_use_max']}", file=sys.stderr)
                rows.append("\t".join(str(x) for x in (name, v["scenario"], v["semaphore"], r["policy"], r["guard"],
                                                       r["sim"]["runs"], q["median"], q["p95"], q["max"])))
    Path(out, "sim-medians.tsv").write_text("\n".join(rows) + "\n")
    return 1 if mismatched else 0


def peak_medians(out, sessions):
    """Each varying callback or poll combination's hardware median peak against the simulator's
    (OUT/sim-medians.tsv), and by scenario and semaphore how often and by how much the hardware's lay below."""
    rel = [os.path.relpath(Path(s).resolve(), REPO) for s in sessions]
    sim_rows = {}
    with open(Path(out) / "sim-medians.tsv") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            sim_rows[(row["session"], row["scenario"], int(row["semaphore"]), row["policy"], row["guard"])] = row
    o = ["# H200: the hardware's median peak against the simulator's (analysis)\n",
         f"Generated by `hw/scripts/callback_log.py peak-medians {os.path.relpath(Path(out).resolve(), REPO)} "
         + " ".join(rel) + "` from the every-policy passes' validate.json files (`all/`) and `sim-medians.tsv` "
         "beside this file: every callback or poll combination whose peak varied between its trials. `hw` is its "
         "trials' peaks (`callback_trials`); `sim` is the simulated runs' median, p95 and max from sim-medians.tsv "
         "(`callback_log.py sim-medians`: the runs played again by `allocsim run --samples`, since validate.json "
         "keeps only the first run's peak and the range). MiB; medians are upper medians.\n",
         "| session | scenario | semaphore | policy + guard | hw min / median / max | sim median / p95 / max | median diff |",
         "|---|---|---|---|---|---|---|"]
    groups, combos = collections.defaultdict(list), collections.defaultdict(list)
    for session, name in zip(sessions, rel):
        for v, r, peaks in varying_callback_runs(session):
            sim = r["sim"]
            row = sim_rows[(Path(name).name, v["scenario"], v["semaphore"], r["policy"], r["guard"])]
            sim_median = int(row["median"])
            diff = (median(peaks) - sim_median) / 1048576
            o.append(f"| {Path(name).name} | {v['scenario']} | {v['semaphore']} | {r['policy']} + {r['guard']} | "
                     f"{mib(min(peaks))} / {mib(median(peaks))} / {mib(max(peaks))} | "
                     f"{mib(sim_median)} / {mib(int(row['p95']))} / {mib(int(row['max']))} | {diff:+g} |")
            # validate.json's lowest simulated peak is this prediction's only when the runs are the same.
            under_floor = (min(peaks) < sim["peak_bytes_in_use_min"]
                           if int(row["max"]) == sim["peak_bytes_in_use_max"] else None)
            groups[(v["scenario"], v["semaphore"])].append((Path(name).name, diff, under_floor, r["guard"]))
            combos[(v["scenario"], v["semaphore"], r["policy"], r["guard"])].append((Path(name).name, diff, under_floor))
    o.append("")
    o.append("By scenario and semaphore: the combinations (over all sessions) whose hardware median lay more than "
             "2 MiB below the simulator's, more than 2 MiB above, and the median differences' range.\n")
    o += ["| scenario | semaphore | combinations | sessions | hw below by > 2 MiB | hw above by > 2 MiB | median diff (MiB) |",
          "|---|---|---|---|---|---|---|"]
    for (scenario, semaphore), rows in sorted(groups.items()):
        diffs = [d for _, d, *_ in rows]
        o.append(f"| {scenario} | {semaphore} | {len(rows)} | {len({n for n, *_ in rows})} | "
                 f"{sum(d < -2 for d in diffs)} | {sum(d > 2 for d in diffs)} | {min(diffs):+g} to {max(diffs):+g} |")
    o.append("")
    # The same policy, guard and point in most sessions: a shift of the model, not one process's.
    steady = []
    for (scenario, semaphore, policy, guard), rows in sorted(combos.items()):
        for side, test in (("below", lambda d: d < -2), ("above", lambda d: d > 2)):
            hits = [(n, d, u) for n, d, u in rows if test(d)]
            if len(rows) >= 3 and 2 * len(hits) > len(rows):
                line = (f"- {scenario} at semaphore {semaphore}, {policy} + {guard}: {side} in {len(hits)} of the "
                        f"{len(rows)} sessions where its peak varied, by {span([abs(d) for _, d, _ in hits], 1, 'g')} MiB")
                if all(u is not None for *_, u in hits):
                    line += f"; its lowest trial lay under every simulated run's peak in {sum(u for *_, u in hits)} of those"
                steady.append(line + ".")
    if steady:
        o.append("The combinations whose hardware median lay more than 2 MiB off the simulator's, on the same side, in "
                 "more than half of the (at least 3) sessions where their peak varied:\n")
        o += steady
    else:
        o.append("No combination's hardware median lay more than 2 MiB off the simulator's on the same side in more than "
                 "half of the sessions where its peak varied.")
    return "\n".join(o).rstrip() + "\n"


def handover_gaps(folder):
    """The spacing of back-to-back hand-overs on one callback stream, per kept log, against calibrate's
    time from a kernel's end to the hand-over (the log's semaphore_release_kernel_end_to_handover extras)."""
    folder = Path(folder)
    o = ["# H200: callbacks handed over back to back (analysis)\n",
         f"Generated by `hw/scripts/callback_log.py handover-gaps {os.path.relpath(folder.resolve(), REPO)}` from the "
         "kept raw trials (`kept-*.jsonl.gz`) and `log.txt`. For two callbacks on one callback stream, the second "
         "enqueued before the first was handed to the relay (so it queued behind it), the time between the two "
         "hand-overs (`handed_over_ns`), in us. This includes the wait for the device work the second is ordered "
         "after, so its low quantiles are the driver's own spacing.\n",
         "| log | pairs | p10 | p50 | p90 |", "|---|---|---|---|---|"]
    for path in sorted(folder.glob("kept-*.jsonl.gz")):
        gaps = []
        for t in list(lines(path))[1:]:
            by_stream = collections.defaultdict(list)
            for c in t["host_callbacks"]:
                by_stream[c["stream"]].append(c)
            for cs in by_stream.values():
                cs.sort(key=lambda c: c["enqueued_ns"])
                gaps += [b["handed_over_ns"] - a["handed_over_ns"] for a, b in zip(cs, cs[1:])
                         if b["enqueued_ns"] < a["handed_over_ns"]]
        if gaps:
            gaps.sort()
            n = len(gaps)
            o.append(f"| {path.name} | {n} | {us(gaps[n // 10])} | {us(gaps[n // 2])} | {us(gaps[n * 9 // 10])} |")
    extras = {}
    for line in (folder / "log.txt").read_text().splitlines():
        if line.startswith("extra semaphore_release_kernel_end_to_handover_p"):
            key, value = line[len("extra "):].split(" = ")
            extras[key.rsplit("_p", 1)[1]] = int(value)
    o.append("")
    if extras:
        o.append("calibrate's kernel end to hand-over, one callback at a time behind a ~600 us spin: "
                 + ", ".join(f"p{k[:-3]} {us(v)} us" for k, v in sorted(extras.items(), key=lambda kv: int(kv[0][:-3])))
                 + ".")
    return "\n".join(o).rstrip() + "\n"


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) == 3 and args[0] == "summarize":
        return summarize(args[1], args[2])
    if len(args) == 2 and args[0] == "check-summaries":
        return check_summaries(args[1])
    if len(args) in (4, 5) and args[0] == "keep" and (len(args) == 4 or args[4] in ("--highest", "--lowest")):
        return keep(args[1], args[2], int(args[3]), args[4] if len(args) == 5 else None)
    if len(args) == 2 and args[0] == "handover-gaps":
        return write_or_check(Path(args[1]) / "handover-gaps.md", handover_gaps(args[1]), check)
    if len(args) >= 4 and args[0] == "sim-medians":
        platform = None
        if "--platform" in args:
            i = args.index("--platform")
            platform, args = args[i + 1], args[:i] + args[i + 2:]
        return sim_medians(args[1], args[3:], args[2], platform)
    if len(args) >= 3 and args[0] == "peak-medians":
        return write_or_check(Path(args[1]) / "analysis.md", peak_medians(args[1], args[2:]), check)
    if len(args) != 2 or args[0] not in ("peak-cause", "peak-delays"):
        print(__doc__, file=sys.stderr)
        return 2
    text = (peak_cause if args[0] == "peak-cause" else peak_delays)(args[1])
    out = Path(args[1]) / ("analysis.md" if args[0] == "peak-cause" else "peak-delays.md")
    return write_or_check(out, text, check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
