#!/usr/bin/env python3
"""What held a validate trial's peak: `allocsim-hw validate --callback-log` files, trial by trial.

  callback_log.py summarize LOG[.gz] OUT.jsonl     one line per trial of LOG: its peak, the buffers held at
                                                   the peak, the earlier executions' among them and the
                                                   callbacks that freed those, and the trial's callbacks
                                                   handed over after a later-enqueued semaphore release
  callback_log.py keep LOG[.gz] OUT.jsonl.gz K     LOG's header, its first K trials of each combination and
                                                   every trial whose peak is above the combination's
                                                   commonest (the raw lines the analysis quotes)
  callback_log.py peak-cause DIR [--check]         DIR/analysis.md from DIR/summary-*.jsonl(.gz)
                                                   (hw/scripts/h200_peak_cause.sh)
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


def commonest_peaks(log):
    peaks = collections.defaultdict(collections.Counter)
    it = lines(log)
    next(it)
    for t in it:
        peaks[(t["policy"], t["guard"])][t["peak_bytes_in_use"]] += 1
    return {k: v.most_common(1)[0][0] for k, v in peaks.items()}


def keep(log, out, first):
    common = commonest_peaks(log)
    it = lines(log)
    with gzip.open(out, "wt") as f:
        f.write(json.dumps(next(it)) + "\n")
        for t in it:
            if t["trial"] < first or t["peak_bytes_in_use"] > common[(t["policy"], t["guard"])]:
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


def mib(b):
    return f"{b / 1048576:g}"


def us(ns):
    return f"{ns / 1000:.0f}"


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
         "device machine over every counted trial). Held at the peak: the allocations whose chunks were out of the "
         "pool when in-use bytes first reached the trial's peak; from an earlier execution: allocated before the host "
         "got the compute-semaphore unit of the execution the peak is in. Inverted: a free callback handed to the "
         "relay after a semaphore-release callback enqueued later than it.\n",
         "| run | policy + guard | trials | peak (MiB): trials | trials holding an earlier execution's buffer at "
         "the peak | their peaks (MiB) | trials with an inverted free (by stream) |",
         "|---|---|---|---|---|---|---|"]
    findings = []
    for (run, policy, guard), trials in rows.items():
        peaks = collections.Counter(s["peak_bytes_in_use"] for s in trials)
        stale = [s for s in trials if s["earlier_execution_held"]]
        inverted = collections.Counter()
        for s in trials:
            for stream in s["handed_over_after_later_release"]:
                inverted[stream] += 1
        o.append(f"| {run} | {policy} + {guard} | {len(trials)} | "
                 + ", ".join(f"{mib(p)}: {n}" for p, n in sorted(peaks.items())) + f" | {len(stale)} | "
                 + (", ".join(sorted({mib(s['peak_bytes_in_use']) for s in stale})) or "-") + " | "
                 + (", ".join(f"{k}: {v}" for k, v in sorted(inverted.items())) or "0") + " |")
        common = peaks.most_common(1)[0][0]
        for s in trials:
            if s["peak_bytes_in_use"] > common:
                findings.append((run, policy, guard, s))
    o.append("\nEvery trial above its combination's commonest peak, with what it held:\n")
    if not findings:
        o.append("None: every trial reached its combination's commonest peak or less.")
    for run, policy, guard, s in findings:
        held = ", ".join(s["held_at_peak"])
        text = (f"- {run}, {policy} + {guard}, trial {s['trial']}: {mib(s['peak_bytes_in_use'])} MiB at "
                f"{us(s['peak_in_use_at_ns'])} us, held {held}.")
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
        o.append(text)
    o.append("\n" + conclusion(rows, findings))
    return "\n".join(o).rstrip() + "\n"


def conclusion(rows, findings):
    """The sentences the findings support, from the rows: which buffer made each higher peak, and how."""
    if not findings:
        return "No trial went above its combination's commonest peak, so nothing here says what holds a higher one."
    held = [(s, e) for _, _, _, s in findings for e in s["earlier_execution_held"] if "release_handed_over_ns" in e]
    after_release = [(s, e) for s, e in held if e["handed_over_ns"] > e["release_handed_over_ns"]]
    handed_late = [(s, e) for s, e in after_release if e["handed_over_ns"] > s["peak_in_use_at_ns"]]
    taken_late = [(s, e) for s, e in after_release
                  if e["handed_over_ns"] <= s["peak_in_use_at_ns"] < e["taken_up_ns"]]
    streams = sorted({e["stream"] for _, e in held})
    combos = sorted({(p, g) for _, p, g, _ in findings})
    total = sum(len(v) for (_, p, g), v in rows.items() if (p, g) in combos)
    inverted = sum(1 for (_, p, g), v in rows.items() if (p, g) in combos for s in v
                   if s["handed_over_after_later_release"])
    whole = lambda part: f"all {len(part)}" if len(part) == len(findings) else f"{len(part)} of them"
    text = (f"{len(findings)} of {total} trials of " + " and ".join(f"{p} + {g}" for p, g in combos)
            + " went above the commonest peak. In " + whole(after_release)
            + " an earlier execution's buffer was still out of the pool at the peak, and its free callback"
            f" (on {', '.join(streams)}), although enqueued before the semaphore release the host waited for, was"
            " handed to the relay after it, so the host went on into the next execution before the free ran.")
    if handed_late:
        lags = [e["handed_over_ns"] - e["enqueued_ns"] for _, e in handed_late]
        text += (f" In {len(handed_late)} the hand-over itself came after the peak ({min(lags) / 1000:.0f} to "
                 f"{max(lags) / 1000:.0f} us after the enqueue).")
    if taken_late:
        waits = [e["taken_up_ns"] - e["handed_over_ns"] for _, e in taken_late]
        text += (f" In {len(taken_late)} it was handed over before the peak, but the relay's thread took it up only"
                 f" {min(waits) / 1000:.0f} to {max(waits) / 1000:.0f} us later, after the peak.")
    text += (f" A free handed over after a later-enqueued release happened in {inverted} of those {total} trials; the"
             " peak rose only when the free also ran after the next execution's allocations.")
    return text


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) == 3 and args[0] == "summarize":
        return summarize(args[1], args[2])
    if len(args) == 2 and args[0] == "check-summaries":
        return check_summaries(args[1])
    if len(args) == 4 and args[0] == "keep":
        return keep(args[1], args[2], int(args[3]))
    if len(args) != 2 or args[0] != "peak-cause":
        print(__doc__, file=sys.stderr)
        return 2
    text = peak_cause(args[1])
    out = Path(args[1]) / "analysis.md"
    if check:
        same = out.exists() and out.read_text() == text
        if not same:
            print(f"{out} differs from what its summaries give: rerun without --check", file=sys.stderr)
        return 0 if same else 1
    out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
