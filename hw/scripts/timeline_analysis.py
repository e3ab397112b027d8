#!/usr/bin/env python3
"""Issue 17's hardware analyses, computed from the committed results (no number is typed in).

  timeline_analysis.py edge      results/hw/h200-edge      -> results/hw/h200-edge/analysis.md
  timeline_analysis.py launch    results/hw/h200-launch    -> results/hw/h200-launch/analysis.md
  timeline_analysis.py wake      results/hw/h200-edge-2    -> results/hw/h200-edge-2/analysis.md
  timeline_analysis.py chain     results/hw/h200-chain     -> results/hw/h200-chain/analysis.md
  timeline_analysis.py callbacks results/hw/h200-callbacks -> results/hw/h200-callbacks/analysis.md
  timeline_analysis.py queue     results/hw/h200-deferred  -> results/hw/h200-deferred/analysis.md
  timeline_analysis.py process   results/hw/h200-process-pace -> results/hw/h200-process-pace/analysis.md
  timeline_analysis.py release   results/hw/h200-release   -> results/hw/h200-release/analysis.md
  timeline_analysis.py outcomes  results/hw/h200-process-outcomes -> results/hw/h200-process-outcomes/analysis.md
  timeline_analysis.py warmup    results/hw/h200-warmup-outcomes  -> results/hw/h200-warmup-outcomes/analysis.md
  timeline_analysis.py pace      results/hw/h200-warmup           -> results/hw/h200-warmup/analysis.md
  timeline_analysis.py trial-release results/hw/h200-trial-release -> results/hw/h200-trial-release/analysis.md
  timeline_analysis.py post-wake results/hw/post-wake             -> results/hw/post-wake/analysis.md
  timeline_analysis.py spin-edge results/hw/h200-spin-edge        -> results/hw/h200-spin-edge/analysis.md
  timeline_analysis.py cpu-probe results/hw/h200-cpu-probe        -> results/hw/h200-cpu-probe/analysis.md
  timeline_analysis.py host-cpu  results/hw/h200-host-cpu         -> results/hw/h200-host-cpu/analysis.md
  timeline_analysis.py handover  results/hw/h200-handover         -> results/hw/h200-handover/analysis.md

The first three read DIR/timeline.tar.gz (the `validate --timeline` files of hw/scripts/h200_edge.sh
or h200_launch_cost.sh); `callbacks` reads the validate.json files of hw/scripts/h200_callbacks.sh
under DIR/plain and DIR/first, and DIR/pending-log.txt when there is one; `process` reads the validate.json files
of hw/scripts/h200_process_pace.sh under DIR/runs and, beside DIR, those of every session with both a per-execution
and an every-policy pass (PROCESS_SESSIONS). Each writes DIR/analysis.md; with --check
it only compares (exit 1 on a difference), which tests/hw runs so the committed analyses stay what
their data says. Standard library only.
"""
import collections
import gzip
import json
import os
import statistics
import sys
import tarfile
from pathlib import Path

from generated_file import write_or_check


REPO = Path(__file__).resolve().parents[2]


def shown(folder):
    """The folder as the header names it: relative to the repository, wherever the script runs."""
    return os.path.relpath(Path(folder).resolve(), REPO)


def load(folder):
    """{file name: the timeline's first combination}, from folder/timeline.tar.gz."""
    out = {}
    with tarfile.open(Path(folder) / "timeline.tar.gz") as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith(".json"):
                out[Path(m.name).name] = json.load(tar.extractfile(m))["combinations"][0]
    return out


def device_ops(ops):
    return [o for o in ops if o["kind"] in ("kernel", "memset", "copy")]


def by_enqueue(ops):
    return sorted(device_ops(ops), key=lambda o: o["enqueued_ns"])


def host_span_us(ops):
    e = by_enqueue(ops)
    return (e[-1]["enqueued_ns"] - e[0]["enqueued_ns"]) / 1e3


def us(ns):
    return f"{ns / 1e3:.0f}"


def trials_of(timelines, prefix):
    """(trial, combination) in trial order for files named PREFIX-trial-K.json."""
    found = []
    for name, c in timelines.items():
        if name.startswith(prefix + "-trial-"):
            found.append((int(name[len(prefix) + 7:-5]), c))
    return sorted(found, key=lambda t: t[0])


def seed_repro(timelines, o):
    rows = trials_of(timelines, "seed-repro-32")
    o.append("## seed-repro, semaphore 32: execution 1\n")
    o.append("Execution 1 is corrupted when a memset of a later execution (scratch gets X's bytes every time) "
             "writes after X#1's fill and before X#1's copy reads it, on the GPU's own clock. The GPU fills X#1 "
             "once execution 0's 1 ms spin ends, so that happens only while the host is still enqueueing then: "
             "the host span (first to last enqueue) decides it. Trial 0 is each process's first.\n")
    o.append("| trial | hw host span (us) | sim host span (us) | GPU fills X#1 at (us) | last memset starts at (us) | "
             "memsets between fill and copy | hw corrupted execution 1 |")
    o.append("|---|---|---|---|---|---|---|")
    late_and_corrupt = late = corrupt = 0
    spans_corrupt, spans_clean = [], []
    for t, c in rows:
        comp = sorted([x for x in c["ops"] if x["stream"] == "compute"], key=lambda x: x["start_ns"])
        mems = sorted([x for x in c["ops"] if x["kind"] == "memset"], key=lambda x: x["start_ns"])
        fill1, copy1 = comp[4], comp[6]  # execution 1: fill, spin, copy after execution 0's four ops
        between = sum(1 for m in mems if fill1["writes_start_ns"] < m["writes_start_ns"] < copy1["reads_done_ns"])
        hit = 1 in c["corrupted_executions"]
        span = host_span_us(c["ops"])
        if t > 0:
            late += between > 0
            corrupt += hit
            late_and_corrupt += hit and between > 0
            (spans_corrupt if hit else spans_clean).append(span)
        o.append(f"| {t} | {span:.0f} | {host_span_us(c['sim_ops']):.0f} | {us(fill1['writes_start_ns'])} | "
                 f"{us(mems[-1]['start_ns'])} | {between} | {'yes' if hit else 'no'} |")
    n = len([t for t, _ in rows if t > 0])
    o.append(f"\nTrials 1 to {n}: execution 1 corrupted in {corrupt}; a memset landed between the fill and the "
             f"copy in {late}; both in {late_and_corrupt}. Host span of the corrupted trials: "
             f"{', '.join(f'{s:.0f}' for s in sorted(spans_corrupt)) or 'none'} us; of the others: median "
             f"{statistics.median(spans_clean):.0f}, max {max(spans_clean):.0f} us.\n")


def conv_autotune(timelines, o):
    rows = trials_of(timelines, "conv-autotune-32")
    o.append("## conv-autotune, semaphore 32: execution 11\n")
    o.append("Execution 11's corruption is the autotuner's fourth scratch (allocated in execution 11) read by a "
             "candidate after a compute kernel of executions 1 and 2 wrote into its bytes. The simulator's rule: "
             "a write that starts (fill pass) after the previous autotune op's fill starts and before the "
             "candidate's check pass ends is seen. Applied to the GPU's own op times, with the compute kernels "
             "that write the buffers the hardware saw in that scratch (partial#1, dW#1, batch#2, act#2, "
             "im2col#2):\n")
    writers = {"partial#1": (1, 3), "dW#1": (1, 4), "batch#2": (2, 0), "act#2": (2, 1), "im2col#2": (2, 2)}
    o.append("| trial | rule on the GPU's times says | hw corrupted execution 11 | autotune 3 memset starts, hw (us) | sim (us) |")
    o.append("|---|---|---|---|---|")
    agree = said = seen = n = 0
    hw_starts, sim_starts = [], []
    for t, c in rows:
        comp = sorted([x for x in c["ops"] if x["stream"] == "compute"], key=lambda x: x["start_ns"])
        auto = sorted([x for x in c["ops"] if x["stream"] == "autotune"], key=lambda x: x["start_ns"])
        sim_mem = sorted([x for x in c["sim_ops"] if x["kind"] == "memset"], key=lambda x: x["start_ns"])
        epoch = auto[12:16]
        hits = [name for j in range(1, 4) for name, (e, k) in writers.items()
                if epoch[j - 1]["writes_start_ns"] < comp[1 + 6 * e + k]["writes_start_ns"] < epoch[j]["reads_done_ns"]]
        hit = 11 in c["corrupted_executions"]
        if t > 0:
            n += 1
            said += bool(hits)
            seen += hit
            agree += bool(hits) == hit
            hw_starts.append(epoch[0]["start_ns"] / 1e3)
            sim_starts.append(sim_mem[3]["start_ns"] / 1e3)
        o.append(f"| {t} | {'corrupt (' + ', '.join(sorted(set(hits))) + ')' if hits else 'clean'} | "
                 f"{'yes' if hit else 'no'} | {us(epoch[0]['start_ns'])} | {us(sim_mem[3]['start_ns'])} |")
    o.append(f"\nTrials 1 to {n}: the rule on the GPU's times calls {said} corrupt, the hardware saw {seen}; they "
             f"agree on {agree} of {n}. The fourth autotune's memset starts at a median {statistics.median(hw_starts):.0f} "
             f"us on the GPU (max {max(hw_starts):.0f}) and {statistics.median(sim_starts):.0f} us in the simulator "
             f"(max {max(sim_starts):.0f}): the host reaches it later on the hardware.\n")


def gaps_since_wait(timelines, o):
    o.append("## Host time between launches, hardware against simulator\n")
    o.append("Each launch's enqueue time minus the previous one's, by how many launches it comes after the host's "
             "last blocking wait (a gap over 100 us in the simulator), over trials 1 and up: the medians and "
             "their ratio.\n")
    for prefix in ("seed-repro-32", "conv-autotune-32"):
        hw_gaps, sim_gaps = {}, {}
        for t, c in trials_of(timelines, prefix):
            if t == 0:
                continue
            h, s = by_enqueue(c["ops"]), by_enqueue(c["sim_ops"])
            since = 0
            for i in range(1, min(len(h), len(s))):
                gs = s[i]["enqueued_ns"] - s[i - 1]["enqueued_ns"]
                if gs > 100_000:
                    since = 0
                    continue
                since += 1
                hw_gaps.setdefault(since, []).append(h[i]["enqueued_ns"] - h[i - 1]["enqueued_ns"])
                sim_gaps.setdefault(since, []).append(gs)
        all_hw = [g for v in hw_gaps.values() for g in v]
        all_sim = [g for v in sim_gaps.values() for g in v]
        o.append(f"**{prefix}**: all gaps, hw median {statistics.median(all_hw) / 1e3:.1f} us, sim "
                 f"{statistics.median(all_sim) / 1e3:.1f} us, ratio {statistics.median(all_hw) / statistics.median(all_sim):.2f}.\n")
        o.append("| launches since the wait | gaps | hw median (us) | sim median (us) | hw / sim |")
        o.append("|---|---|---|---|---|")
        for k in sorted(hw_gaps)[:12]:
            hm, sm = statistics.median(hw_gaps[k]), statistics.median(sim_gaps[k])
            o.append(f"| {k} | {len(hw_gaps[k])} | {hm / 1e3:.1f} | {sm / 1e3:.1f} | {hm / sm:.2f} |")
        o.append("")


def semaphore_wake(timelines, o):
    rows = trials_of(timelines, "conv-autotune-2")
    o.append("## conv-autotune, semaphore 2: from a freed semaphore slot to the autotuner\n")
    o.append("At semaphore 2 the host enqueues execution k once the GPU finishes execution k - 2 (the "
             "semaphore's release), then the autotuner of epoch e = (k + 1) / 4 allocates its scratch and "
             "launches its memset, which starts on the GPU at once (the autotune stream is idle). Two spans, "
             "over trials 1 and up and epochs 1 to 3: on the GPU's clock, from execution k - 2's last op's end "
             "to the memset's start (release to autotuner); on the host's clock, from execution k's first "
             "launch to the memset's launch (the host's own work in it). The rest of the first span is the "
             "wake-up: the semaphore's release reaching the host and the host's first launch after it.\n")
    o.append("| side | release to autotuner, median (us) | p10 | p90 | host's own work, median (us) | p90 |")
    o.append("|---|---|---|---|---|---|")
    spans = {}
    for side in ("hw", "sim"):
        release, work = [], []
        for t, c in rows:
            if t == 0:
                continue
            ops = device_ops(c["ops"] if side == "hw" else c["sim_ops"])
            comp = sorted([x for x in ops if x["stream"] == "compute"], key=lambda x: x["start_ns"])
            mems = sorted([x for x in ops if x["kind"] == "memset"], key=lambda x: x["start_ns"])
            enq = by_enqueue(ops)
            at = [i for i, x in enumerate(enq) if x["kind"] == "memset"]
            for e in (1, 2, 3):
                k = 4 * e - 1
                release.append((mems[e]["start_ns"] - comp[6 + 6 * (k - 2)]["end_ns"]) / 1e3)
                work.append((enq[at[e]]["enqueued_ns"] - enq[at[e] - 6]["enqueued_ns"]) / 1e3)
        q = lambda v, p: sorted(v)[min(len(v) - 1, int(p * len(v)))]
        spans[side] = (statistics.median(release), statistics.median(work))
        o.append(f"| {side} | {statistics.median(release):.0f} | {q(release, 0.1):.0f} | {q(release, 0.9):.0f} | "
                 f"{statistics.median(work):.0f} | {q(work, 0.9):.0f} |")
    (hr, hw_work), (sr, sim_work) = spans["hw"], spans["sim"]
    o.append(f"\nThe hardware's median from the release to the autotuner is {hr - sr:.0f} us longer than the "
             f"simulator's: {hw_work - sim_work:.0f} us of it in the host's own work, {(hr - hw_work) - (sr - sim_work):.0f} us "
             "in the wake-up (differences of medians). Corrupted executions 3, 7 and 11 on the hardware in these trials: " +
             ", ".join(str(sum(1 for t, c in rows if t > 0 and k in c["corrupted_executions"])) for k in (3, 7, 11)) +
             f" of {len([t for t, _ in rows if t > 0])}.\n")


def header(kind, folder, title, more=""):
    """An analysis's title and where its numbers come from."""
    return [f"# H200: {title} (analysis)\n",
            f"Generated by `hw/scripts/timeline_analysis.py {kind} {shown(folder)}` from `timeline.tar.gz`; every "
            "number here is computed from it (tests/hw checks it)." + more + "\n"]


def wake(folder):
    t = load(folder)
    o = header("wake", folder, "conv-autotune at semaphore 2, a timeline per trial")
    semaphore_wake(t, o)
    return "\n".join(o).rstrip() + "\n"


def profile_values(log):
    """{field: value} of the `NAME = VALUE  (meaning)` profile lines `allocsim-hw calibrate` printed into LOG."""
    out = {}
    for line in Path(log).read_text().splitlines():
        head = line.split("  (")[0]
        if " = " in head and not head.startswith(("extra ", " ")):
            name, value = head.split(" = ")
            out[name] = float(value)
    return out


def chain(folder):
    """wake's analysis, then the release path stage by stage from each DIR/calibrate-K.log."""
    o = (wake(folder).replace("timeline_analysis.py wake", "timeline_analysis.py chain")
         .replace("from `timeline.tar.gz`", "from `timeline.tar.gz` and the `calibrate-K.log` files").rstrip().split("\n"))
    o[0] = "# H200: a compute-semaphore release, stage by stage (analysis)"
    o.append("\n## The release path in calibration, against what the simulator charged for it\n")
    o.append("Each `calibrate-K.log` is one calibrating process. The simulator charged a semaphore release "
             "`callback_latency_ns` (a callback on an idle stream, from its enqueue, the relay asleep) and then "
             "`signal_wakeup_ns` (the host asleep on a condition variable). Calibration also timed the release "
             "as validation makes it: a ~600 us spin, a store to mapped host memory that a polling thread stamps "
             "(the kernel's end), a callback through the relay that notifies the sleeping host. Medians (us); the "
             "last column is the path's p90.\n")
    o.append("| calibration | callback_latency_ns | signal_wakeup_ns | charged | kernel end to HIP's hand-over | "
             "hand-over to the relay's body | notify to host awake | kernel end to host awake | its p90 |")
    o.append("|---|---|---|---|---|---|---|---|---|")
    ratios, handover_longer = [], 0
    for log in sorted(Path(folder).glob("calibrate-*.log")):
        p, x = profile_values(log), calibrate_extras(log, "semaphore_release_")
        charged = p["callback_latency_ns"] + p["signal_wakeup_ns"]
        total = x["kernel_end_to_host_awake_p50_ns"]
        ratios.append(total / charged)
        handover_longer += x["kernel_end_to_handover_p50_ns"] > p["callback_latency_ns"]
        o.append(f"| {log.stem} | {us(p['callback_latency_ns'])} | {us(p['signal_wakeup_ns'])} | {us(charged)} | "
                 f"{us(x['kernel_end_to_handover_p50_ns'])} | {us(x['handover_to_relay_p50_ns'])} | "
                 f"{us(x['notify_to_host_awake_p50_ns'])} | {us(total)} | {us(x['kernel_end_to_host_awake_p90_ns'])} |")
    o.append(f"\nFrom a kernel's end to the host awake took {min(ratios):.2f} to {max(ratios):.2f} times what the "
             "simulator charged (medians). The hand-over alone, a callback reached behind a kernel, took longer than "
             f"the whole idle-stream callback_latency_ns in {handover_longer} of {len(ratios)} calibrations.\n")
    return "\n".join(o).rstrip() + "\n"


def edge(folder):
    t = load(folder)
    o = header("edge", folder, "one timeline per trial at issue 17's two missing points")
    seed_repro(t, o)
    conv_autotune(t, o)
    gaps_since_wait(t, o)
    return "\n".join(o).rstrip() + "\n"


def launch(folder):
    t = load(folder)
    o = header("launch", folder, "a launch's host cost by what the device is doing",
               " 40 back-to-back launches of an empty op: while the side stream sweeps 2 GiB (traffic), runs a "
               "one-thread spin (quiet), or after the host waited 1 ms for a spin (wake). Gaps are enqueue-to-enqueue "
               "host times.")
    o += ["| scenario | trial | median gap (us) | first three gaps (us) | side stream busy on the GPU (us) |",
         "|---|---|---|---|---|"]
    medians = {}
    for v in ("traffic", "quiet", "wake"):
        for k, c in trials_of(t, "launch-" + v):
            tiny = by_enqueue([x for x in c["ops"] if x["stream"] == "compute"])
            side = [x for x in c["ops"] if x["stream"] == "side"]
            g = [tiny[i]["enqueued_ns"] - tiny[i - 1]["enqueued_ns"] for i in range(1, len(tiny))]
            medians.setdefault(v, []).append(statistics.median(g))
            o.append(f"| {v} | {k} | {statistics.median(g) / 1e3:.2f} | {', '.join(f'{x / 1e3:.1f}' for x in g[:3])} | "
                     f"{us(min(x['start_ns'] for x in side))}–{us(max(x['end_ns'] for x in side))} |")
    spread = {v: (min(m), max(m)) for v, m in medians.items()}
    o.append("\nMedian gap per trial, lowest to highest: " +
             "; ".join(f"{v} {lo / 1e3:.2f}–{hi / 1e3:.2f} us" for v, (lo, hi) in spread.items()) + ".")
    overlap = max(lo for lo, _ in spread.values()) <= min(hi for _, hi in spread.values())
    o.append("The three conditions' ranges " + ("overlap: what the device does moves a launch's host cost less "
             "than the trial-to-trial spread does." if overlap else "do not all overlap.") + "\n")
    return "\n".join(o).rstrip() + "\n"


def callback_runs(folder, variant):
    """{(scenario, semaphore, policy, guard): run} from DIR/VARIANT/*/semaphore-*/validate.json."""
    out = {}
    for f in sorted(Path(folder, variant).glob("*/semaphore-*/validate.json")):
        d = json.loads(f.read_text())
        for r in d["runs"]:
            out[(d["scenario"], d["semaphore"], r["policy"], r["guard"])] = r
    return out


def split_recorded(runs):
    return bool(runs) and all("reach_max_ns" in r["callback_trials"][0] for r in runs.values())


def inside_sim(run):
    """Whether a run's hardware peak range lies inside its calibrated prediction's range."""
    s = run["sim"]
    return s["peak_bytes_in_use_min"] <= run["peak_bytes_in_use_min"] and run["peak_bytes_in_use"] <= s["peak_bytes_in_use_max"]


def mib_range(lo, hi):
    return f"{lo / 2**20:.0f}–{hi / 2**20:.0f}"


def high_peak_trials(first, o):
    """Trials whose peak is 10 MiB or more above their combination's median, against the others: where
    their callbacks' longest waits went."""
    o += ["\nTrials whose peak is at least 10 MiB above their combination's median (high), against the other "
          "trials within 2 MiB of it: the median over those trials of each trial's longest wait of a callback "
          "from its enqueue to HIP's hand-over, from the hand-over to the relay's thread, and for the lock "
          "(us), with callbacks first:\n",
          "| scenario | semaphore | policy + guard | trials | high | to hand-over: high / others | "
          "to relay: high / others | for lock: high / others |", "|---|---|---|---|---|---|---|---|"]
    for key in sorted(first):
        t = first[key]["callback_trials"]
        peak = lambda x: x["peak_bytes_in_use"] / 2**20
        mid = statistics.median(peak(x) for x in t)
        high = [x for x in t if peak(x) >= mid + 10]
        rest = [x for x in t if peak(x) < mid + 2]
        if not high or not rest:
            continue
        pair = lambda f: f"{statistics.median(x[f] for x in high) / 1e3:.0f} / {statistics.median(x[f] for x in rest) / 1e3:.0f}"
        o.append(f"| {key[0]} | {key[1]} | {key[2]} + {key[3]} | {len(t)} | {len(high)} | {pair('reach_max_ns')} | "
                 f"{pair('wake_max_ns')} | {pair('lock_wait_max_ns')} |")


def first_only(first, o):
    """A run of the callbacks-first lock alone: each combination's peaks against the simulator's range."""
    o += ["| scenario | semaphore | policy + guard | trials | lock wait median / max (us) | hw peak | sim peak | inside sim |",
          "|---|---|---|---|---|---|---|---|"]
    inside = 0
    for key in sorted(first):
        r = first[key]
        t = r["callback_trials"]
        waits = [x["lock_wait_max_ns"] for x in t]
        s = r["sim"]
        ok = inside_sim(r)
        inside += ok
        o.append(f"| {key[0]} | {key[1]} | {key[2]} + {key[3]} | {len(t)} | {statistics.median(waits) / 1e3:.0f} / "
                 f"{max(waits) / 1e3:.0f} | {mib_range(r['peak_bytes_in_use_min'], r['peak_bytes_in_use'])} | "
                 f"{mib_range(s['peak_bytes_in_use_min'], s['peak_bytes_in_use_max'])} | {'yes' if ok else '**no**'} |")
    o.append(f"\nThe hardware's peak range lies inside the simulator's for {inside} of {len(first)} combinations.\n")


def callbacks(folder):
    plain, first = callback_runs(folder, "plain"), callback_runs(folder, "first")
    o = header("callbacks", folder, "the callback policies " +
               ("with the plain state lock and with callbacks first" if plain else "with callbacks first"), "")
    o[1] = (f"Generated by `hw/scripts/timeline_analysis.py callbacks {shown(folder)}` from the `validate.json` files "
            "under " + ("`plain/` and " if plain else "") + "`first/`" + (" and from `pending-log.txt`" if (Path(folder) / "pending-log.txt").exists()
                                                else "") + "; every number here is computed from them (tests/hw "
            "checks it). Lock wait: each trial's longest wait of a callback for the backend's state lock, median over "
            "trials and the longest of all. Peaks in MiB; sim: the calibrated prediction's range over its runs.\n")
    if plain:
        o += ["| scenario | semaphore | policy + guard | plain: lock wait median / max (us) | plain: hw peak | "
              "first: lock wait median / max (us) | first: hw peak | sim peak | plain inside sim | first inside sim |",
              "|---|---|---|---|---|---|---|---|---|---|"]
        inside = {"plain": 0, "first": 0}
        worst = {"plain": 0, "first": 0}
        for key in sorted(plain):
            if key not in first:
                continue
            cells = []
            for v, r in (("plain", plain[key]), ("first", first[key])):
                t = r["callback_trials"]
                waits = [x["lock_wait_max_ns"] for x in t]
                worst[v] = max(worst[v], max(waits))
                peaks = [x["peak_bytes_in_use"] for x in t]
                cells += [f"{statistics.median(waits) / 1e3:.0f} / {max(waits) / 1e3:.0f}", mib_range(min(peaks), max(peaks))]
            sim = plain[key]["sim"]
            row_inside = []
            for v, r in (("plain", plain[key]), ("first", first[key])):
                ok = inside_sim(r)
                inside[v] += ok
                row_inside.append("yes" if ok else "**no**")
            o.append(f"| {key[0]} | {key[1]} | {key[2]} + {key[3]} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} | "
                     f"{mib_range(sim['peak_bytes_in_use_min'], sim['peak_bytes_in_use_max'])} | {row_inside[0]} | {row_inside[1]} |")
        n = len([k for k in plain if k in first])
        o.append(f"\nThe hardware's peak range lies inside the simulator's for {inside['plain']} of {n} combinations with the "
                 f"plain lock and {inside['first']} of {n} with callbacks first. The longest wait of a callback for the lock: "
                 f"{worst['plain'] / 1e3:.0f} us plain, {worst['first'] / 1e3:.0f} us with callbacks first.\n")
    else:
        first_only(first, o)
    o += ["Host cost of a callback enqueue inside release plans, and the host's busy time through the program "
          "(medians over trials; simulator: over its runs), with callbacks first:\n",
          "| scenario | semaphore | policy + guard | enqueue (us) | host busy hw (ms) | host busy sim (ms) |",
          "|---|---|---|---|---|---|"]
    for key in sorted(first):
        r = first[key]
        ce = r["host_calls"]["callback_enqueue"]
        if not ce["calls"]:
            continue
        o.append(f"| {key[0]} | {key[1]} | {key[2]} + {key[3]} | {ce['ns'] / ce['calls'] / 1e3:.1f} | "
                 f"{r['host_busy_ns'] / 1e6:.2f} | {r['sim']['host_busy_ns'] / 1e6:.2f} |")
    if split_recorded(first):
        high_peak_trials(first, o)
    timed = [k for k in sorted(first) if "hold_total_ns" in first[k]["callback_trials"][0]]
    if timed:
        split = "reach_max_ns" in first[timed[0]]["callback_trials"][0]
        o += ["\nThe callbacks' bodies (holding the state lock), validation's checks inside them, and the host thread's "
              "waits for the lock, per trial (medians over trials, us), with callbacks first" +
              (("; and a callback's longest wait in a trial from its enqueue to HIP's hand-over (the GPU reaching it, "
                "and the driver), from the hand-over to the relay's thread taking it up, and for the lock") if split else "") +
              ":\n",
              "| scenario | semaphore | policy + guard | callbacks | bodies | checks in them | host's waits |" +
              (" longest to hand-over | longest to relay | longest for lock |" if split else ""),
              "|---|---|---|---|---|---|---|" + ("---|---|---|" if split else "")]
        for key in timed:
            t = first[key]["callback_trials"]
            med = lambda f: statistics.median(x[f] for x in t)
            o.append(f"| {key[0]} | {key[1]} | {key[2]} + {key[3]} | {med('callbacks'):.0f} | {med('hold_total_ns') / 1e3:.0f} | "
                     f"{med('instrument_ns') / 1e3:.0f} | {med('host_lock_wait_ns') / 1e3:.0f} |" +
                     (f" {med('reach_max_ns') / 1e3:.0f} | {med('wake_max_ns') / 1e3:.0f} | {med('lock_wait_max_ns') / 1e3:.0f} |"
                      if split else ""))
    every = [k for k in sorted(first) if "host_calls_all" in first[k]]
    if every:
        o += ["\nThe host thread's time per trial, with callbacks first (us): its busy time through the program and its "
              "waits for the state lock (medians over trials); every timed backend call but the blocking waits (the "
              "lock waits inside them included), and of those the launches and the callback enqueues (totals over "
              "the trials over the trials' number), with the mean of one call:\n",
              "| scenario | semaphore | policy + guard | busy (median) | calls | launches | one launch | "
              "callback enqueues | one enqueue | host's lock waits (median) |", "|---|---|---|---|---|---|---|---|---|---|"]
        for key in every:
            r = first[key]
            c, n = r["host_calls_all"], r["trials"]
            calls = sum(v["ns"] for k, v in c.items() if k != "wait")
            per = lambda k: c[k]["ns"] / n / 1e3
            one = lambda k: c[k]["ns"] / c[k]["calls"] / 1e3 if c[k]["calls"] else 0
            waits = statistics.median(x["host_lock_wait_ns"] for x in r["callback_trials"]) / 1e3
            o.append(f"| {key[0]} | {key[1]} | {key[2]} + {key[3]} | {r['host_busy_ns'] / 1e3:.0f} | {calls / n / 1e3:.0f} | "
                     f"{per('launch'):.0f} | {one('launch'):.1f} | {per('callback_enqueue'):.0f} | "
                     f"{one('callback_enqueue'):.1f} | {waits:.0f} |")
    log = Path(folder) / "pending-log.txt"
    if not log.exists():
        return "\n".join(o).rstrip() + "\n"
    extras = {}
    for line in log.read_text().splitlines():
        if line.startswith("extra pending_"):
            name, value = line[len("extra pending_"):].split(" = ")
            extras[name] = float(value)
    o += ["\nThe same calls with 512 pending behind a blocked stream (`pending-log.txt`; median of the first and of "
          "the last 64 calls, us):\n", "| pattern | call | first 64 | last 64 |", "|---|---|---|---|"]
    for name in sorted(k[:-len("_first64_ns")] for k in extras if k.endswith("_first64_ns")):
        pattern, call = next((p, name[len(p) + 1:]) for p in ("beside_running_callbacks", "launch_then_callback", "callbacks", "launches")
                             if name.startswith(p + "_"))
        o.append(f"| {pattern} | {call} | {extras[name + '_first64_ns'] / 1e3:.1f} | {extras[name + '_last64_ns'] / 1e3:.1f} |")
    return "\n".join(o).rstrip() + "\n"


def calibrate_extras(log, prefix):
    """{name: value} of the `extra PREFIX...` lines `allocsim-hw calibrate` printed into LOG."""
    out = {}
    for line in Path(log).read_text().splitlines():
        if line.startswith("extra " + prefix):
            name, value = line[len("extra " + prefix):].split(" = ")
            out[name] = float(value)
    return out


def per_call_us(run, kind):
    c = run["host_calls_all"][kind]
    return c["ns"] / c["calls"] / 1e3 if c["calls"] else 0


def queue(folder):
    """The deferred-callback policy's host stalls (results/hw/h200-deferred): which host calls are slower with
    guard none than with wait-compute, whether the host's CPUs or its lock matter, where the stalls lie in a
    trial's timeline, and after how many pending host callbacks a launch blocks."""
    o = [f"# H200: why the host is slower under deferred-callback + none (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py queue {shown(folder)}` from the `validate.json` files under "
         "`first/` and `variants/`, the two timelines under `timeline/` and `queue/calibrate.log`; every number here "
         "is computed from them (tests/hw checks it). conv-autotune at semaphore 32.\n",
         "Host time of one call (mean over every call of every trial, us), the host's busy time through the program "
         "(median over trials, us) and the hardware's peak range (MiB), per run; `first` is the h200_callbacks.sh "
         "run, the others `variants/` (base, base2: as first; plain: `--state-lock plain`; cores1, cores2, cores4: "
         "the process pinned to 1, 2, 4 CPUs with taskset; conn32: CUDA_DEVICE_MAX_CONNECTIONS=32):\n",
         "| run | guard | trials | busy | launch | callback enqueue | event create | pool allocate | peak |",
         "|---|---|---|---|---|---|---|---|---|"]
    runs = [("first", f) for f in sorted(Path(folder, "first").glob("*/semaphore-*/validate.json"))]
    runs += [(f.parent.parent.name, f) for f in sorted(Path(folder, "variants").glob("*/x/validate.json"))]
    ratios = {}
    for name, f in runs:
        for r in json.loads(f.read_text())["runs"]:
            o.append(f"| {name} | {r['guard']} | {r['trials']} | {r['host_busy_ns'] / 1e3:.0f} | {per_call_us(r, 'launch'):.1f} | "
                     f"{per_call_us(r, 'callback_enqueue'):.1f} | {per_call_us(r, 'event_create'):.2f} | "
                     f"{per_call_us(r, 'pool_allocate'):.2f} | {mib_range(r['peak_bytes_in_use_min'], r['peak_bytes_in_use'])} |")
            ratios.setdefault(name, {})[r["guard"]] = r
    launch_ratio = [per_call_us(g["none"], "launch") / per_call_us(g["wait-compute"], "launch") for g in ratios.values()]
    busy_none = [g["none"]["host_busy_ns"] / 1e3 for g in ratios.values()]
    o.append(f"\nA launch takes {min(launch_ratio):.1f} to {max(launch_ratio):.1f} times as long with none as with "
             f"wait-compute in every run, and the host's busy time with none stays within {min(busy_none):.0f}–"
             f"{max(busy_none):.0f} us whether the process has 1 CPU or all of them, either lock, or 32 connections.\n")
    o += ["Host stalls in one trial's timeline (`timeline/`, trial 1): gaps between consecutive launches (in the "
          "host's order) of 100 us to 1 ms, and of 1 ms or more (the autotuner's stream synchronizations), with the "
          "host's span from its first launch to its last:\n",
          "| guard | launches | host span (us) | gaps 100 us–1 ms | their sum (us) | their median (us) | gaps ≥ 1 ms | their sum (us) |",
          "|---|---|---|---|---|---|---|---|"]
    for f in sorted(Path(folder, "timeline").glob("timeline-*.json.gz")):
        c = json.load(gzip.open(f))["combinations"][0]
        e = by_enqueue(c["ops"])
        g = [b["enqueued_ns"] - a["enqueued_ns"] for a, b in zip(e, e[1:])]
        mid, big = [x for x in g if 100e3 <= x < 1e6], [x for x in g if x >= 1e6]
        o.append(f"| {c['guard']} | {len(e)} | {host_span_us(c['ops']):.0f} | {len(mid)} | {us(sum(mid))} | "
                 f"{us(statistics.median(mid)) if mid else '-'} | {len(big)} | {us(sum(big))} |")
    extras = calibrate_extras(Path(folder, "queue", "calibrate.log"), "queue_")
    o += ["\nBehind a ~40 ms spin, 512 rounds of a launch and parts of the policy's per-free sequence "
          "(`queue/calibrate.log`, calibrate's queue diagnostic): the first call over 1 ms (it waited for the spin) "
          "and its round (-1: none blocked):\n",
          "| parts | blocked in round | blocked call | blocked for (ms) |", "|---|---|---|---|"]
    calls = {-1: "-", 0: "launch", 1: "event record / wait", 2: "callback enqueue"}
    blocking = []
    for name in sorted(k[:-len("_blocked_round")] for k in extras if k.endswith("_blocked_round")):
        rnd = int(extras[name + "_blocked_round"])
        o.append(f"| {name} | {rnd} | {calls[int(extras[name + '_blocked_call'])]} | {extras[name + '_blocked_ns'] / 1e6:.1f} |")
        blocking.append((name, rnd))
    with_cb = {r for n, r in blocking if "callback" in n}
    without_cb = {r for n, r in blocking if "callback" not in n}
    o.append("\nEvery combination with a callback per round blocks in round " + ", ".join(str(r) for r in sorted(with_cb)) +
             "; without callbacks, blocked rounds: " + ", ".join(str(r) for r in sorted(without_cb)) + ".\n")
    return "\n".join(o).rstrip() + "\n"


# The sessions whose per-execution pass and every-policy pass ran immediate + none on the same program in two
# processes of one machine, a few minutes apart (hw/scripts/h200_passes.sh).
PROCESS_SESSIONS = ["h200-lock-2", "h200-slots", "h200-tail", "h200-relay", "h200-cold", "h200-cold2"]


def process(folder):
    """The host's pace from process to process (results/hw/h200-process-pace): one validation's host busy time in
    18 processes, unpinned or pinned to four CPUs; and the same program's in the two passes of earlier sessions."""
    o = [f"# H200: the host's pace from one process to the next (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py process {shown(folder)}` from the `validate.json` files under "
         "`runs/` and those of the sessions named below; every number here is computed from them (tests/hw checks "
         "it).\n",
         "conv-autotune at semaphore 32, immediate + none, 40 trials per process: each process's median host busy time "
         "through the program (us) and how many of its 40 trials corrupted executions 0, 1 and 2, in run order "
         "(`any`: unpinned; `0-3`, `8-11`: `taskset -c` to those CPUs; the three interleaved):\n",
         "| CPUs | process | host busy (us) | corrupted trials, executions 0 / 1 / 2 |", "|---|---|---|---|"]
    busy = {}
    fast, slow = [], []
    runs = sorted(Path(folder, "runs").glob("*/validate.json"), key=lambda f: (f.parent.name.rsplit("-", 1)[0],
                                                                             int(f.parent.name.rsplit("-", 1)[1])))
    for f in runs:
        where, i = f.parent.name.rsplit("-", 1)
        r = json.loads(f.read_text())["runs"][0]
        b = r["host_busy_ns"] / 1e3
        busy.setdefault(where, []).append(b)
        e = r["corrupted_by_execution"]
        o.append(f"| {where} | {i} | {b:.0f} | {e[0]} / {e[1]} / {e[2]} |")
        (fast if b < 1100 else slow).append(sum(e[:3]) / (3 * r["trials"]))
    o.append("")
    for where, v in busy.items():
        o.append(f"- {where}: {min(v):.0f}–{max(v):.0f} us over {len(v)} processes, {max(v) / min(v):.2f} times from "
                 "fastest to slowest.")
    if fast and slow:
        o.append(f"- Processes under 1100 us corrupted executions 0–2 in {100 * statistics.mean(fast):.0f}% of their "
                 f"trials ({len(fast)} processes), the others in {100 * statistics.mean(slow):.0f}% ({len(slow)}).")
    o += ["\nThe same program, policy and guard (immediate + none) in the two passes of one session on one machine, "
          "a few minutes apart: the per-execution pass's process (400 trials) and the every-policy pass's (40 "
          "trials). Median host busy time (us) in each, and their ratio:\n",
          "| session | scenario | semaphore | per-execution pass | every-policy pass | ratio |", "|---|---|---|---|---|---|"]
    ratios = []
    for session in PROCESS_SESSIONS:
        root = Path(folder).parent / session
        for f in sorted(root.glob("per-execution/*/semaphore-*/validate.json"),
                        key=lambda f: (f.parent.parent.name, int(f.parent.name.split("-")[1]))):
            other = root / "all" / f.parent.parent.name / f.parent.name / "validate.json"
            if not other.exists():
                continue
            a = json.loads(f.read_text())["runs"][0]
            b = next(r for r in json.loads(other.read_text())["runs"] if r["policy"] == "immediate" and r["guard"] == "none")
            ratio = max(a["host_busy_ns"], b["host_busy_ns"]) / min(a["host_busy_ns"], b["host_busy_ns"])
            ratios.append(ratio)
            o.append(f"| {session} | {f.parent.parent.name} | {f.parent.name.split('-')[1]} | {a['host_busy_ns'] / 1e3:.0f} | "
                     f"{b['host_busy_ns'] / 1e3:.0f} | {ratio:.2f} |")
    if ratios:
        o.append(f"\nOver these {len(ratios)} pairs the slower process took {statistics.median(ratios):.2f} times the "
                 f"faster one's host time at the median and {max(ratios):.2f} at most.\n")
    return "\n".join(o).rstrip() + "\n"

SPREAD_LEVELS = [0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99]  # platform_spread.h's kSpreadLevels


def spread_at(q, u):
    """PlatformSpread::at: the spread's value at level u, linear between its levels."""
    for i in range(1, len(SPREAD_LEVELS)):
        if u <= SPREAD_LEVELS[i]:
            lo, hi = SPREAD_LEVELS[i - 1], SPREAD_LEVELS[i]
            return q[i - 1] + (u - lo) / (hi - lo) * (q[i] - q[i - 1])
    return q[-1]


def quantile(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def compute_ops(ops):
    """The compute stream's device ops by start and by launch, and the executions they make (six ops each,
    after init_weights)."""
    comp = sorted([x for x in device_ops(ops) if x["stream"] == "compute"], key=lambda x: x["start_ns"])
    return comp, sorted(comp, key=lambda x: x["enqueued_ns"]), (len(comp) - 1) // 6


def release_stages(c, semaphore):
    """Each semaphore release that the host waited for in one timeline: {stage: us}. Execution r's
    last compute op's end (GPU clock) frees the unit execution r + semaphore waits for; the host's
    stamps (its own clock) give the rest. The two clocks meet at the launch nearest its start (the
    smallest start minus launch time over the trial's ops: the clocks' offset plus the shortest
    launch-to-start latency, a few us), so the first stage is that much short."""
    offset = min(o["start_ns"] - o["enqueued_ns"] for o in device_ops(c["ops"]))
    comp, launched, executions = compute_ops(c["ops"])
    cbs, waits = c["host_callbacks"], c["semaphore_waits"]
    out = []
    for r in range(executions - semaphore):
        end, b, w = comp[6 + 6 * r]["end_ns"], cbs[r], waits[r + semaphore]
        if w["since_ns"] > b["done_ns"]:
            continue  # the host was not waiting for this release
        first = launched[1 + 6 * (r + semaphore)]["enqueued_ns"]
        out.append({"kernel end to HIP's hand-over": (b["handed_over_ns"] + offset - end) / 1e3,
                    "hand-over to the relay": (b["taken_up_ns"] - b["handed_over_ns"]) / 1e3,
                    "relay to the state lock": (b["locked_ns"] - b["taken_up_ns"]) / 1e3,
                    "the body": (b["done_ns"] - b["locked_ns"]) / 1e3,
                    "body's end to the host awake": (w["acquired_ns"] - b["done_ns"]) / 1e3,
                    "host awake to its next launch": (first - w["acquired_ns"]) / 1e3,
                    "kernel end to the next launch": (first + offset - end) / 1e3})
    return out


def release_to_launch(ops, semaphore):
    """us from execution r's last compute op's end to execution r + semaphore's first launch (one clock: the
    simulator's), where the launch came after the end."""
    comp, launched, executions = compute_ops(ops)
    spans = []
    for r in range(executions - semaphore):
        end, first = comp[6 + 6 * r]["end_ns"], launched[1 + 6 * (r + semaphore)]["enqueued_ns"]
        if first >= end:
            spans.append((first - end) / 1e3)
    return spans


def release(folder):
    """The semaphore release in validated programs (results/hw/h200-release, -2-timelines): stage by stage from the
    timelines' host stamps, against the simulator's, and calibrate's release with 1, 2 and 8 rounds in flight."""
    t = load(folder)
    o = header("release", folder, "a semaphore release in the validated programs, stage by stage",
               " The calibration lines are `log.txt`'s.")
    sems = sorted({int(n.split("-")[2]) for n in t if n.startswith("conv-autotune-")})
    o.append("## conv-autotune under immediate + none: each release the host waited for\n")
    o.append("Trials 1 and up, every release of a semaphore unit the host was asleep waiting for: median / p90 (us) of "
             "each stage, from the host's stamps in the timelines (the first and last rows meet the GPU's clock at the "
             "launch nearest its start, a few us short).\n")
    stages = None
    rows = {}
    for sem in sems:
        got = []
        for name, c in t.items():
            if name.startswith(f"conv-autotune-{sem}-immediate-none-trial-") and not name.endswith("-trial-0.json"):
                got += release_stages(c, sem)
        if got:
            rows[sem] = got
            stages = list(got[0])
    o.append("| stage | " + " | ".join(f"semaphore {s}" for s in rows) + " |")
    o.append("|---|" + "---|" * len(rows))
    for st in stages or []:
        o.append(f"| {st} | " + " | ".join(f"{statistics.median([g[st] for g in v]):.0f} / {quantile([g[st] for g in v], 0.9):.0f}"
                                           for v in rows.values()) + " |")
    o.append("| releases | " + " | ".join(str(len(v)) for v in rows.values()) + " |")
    o.append("\nThe same span, from an execution's last op's end to the first launch of the execution its unit lets in, "
             "on the GPU and in the simulator's run of the same trial (p10 / median / p90, us):\n")
    o.append("| semaphore | hw | its releases (the host waiting) | sim | its releases (every one) |")
    o.append("|---|---|---|---|---|")
    for sem in sems:
        hw, sim = [], []
        for name, c in t.items():
            if name.startswith(f"conv-autotune-{sem}-immediate-none-trial-") and not name.endswith("-trial-0.json"):
                hw += [g["kernel end to the next launch"] for g in release_stages(c, sem)]
                sim += release_to_launch(c["sim_ops"], sem)
        if hw and sim:
            fmt3 = lambda v: f"{quantile(v, 0.1):.0f} / {statistics.median(v):.0f} / {quantile(v, 0.9):.0f}"
            o.append(f"| {sem} | {fmt3(hw)} | {len(hw)} | {fmt3(sim)} | {len(sim)} |")
    x = calibrate_extras(Path(folder) / "log.txt", "semaphore_")
    o.append("\n## calibrate's release, one at a time and with rounds in flight\n")
    o.append("`semaphore_release_*` times one release at a time (each round waits for the last); "
             "`semaphore_pipeline_depthD_*` keeps D rounds in flight as a program under semaphore D does. p50 / p90 / "
             "p99 (us):\n")
    o.append("| rounds in flight | kernel end to HIP's hand-over | kernel end to the host awake |")
    o.append("|---|---|---|")
    for label, prefix in [("one at a time", "release_"), ("1", "pipeline_depth1_"), ("2", "pipeline_depth2_"),
                          ("8", "pipeline_depth8_")]:
        cell = lambda stage: " / ".join(us(x[f"{prefix}{stage}_p{q}_ns"]) for q in (50, 90, 99))
        o.append(f"| {label} | {cell('kernel_end_to_handover')} | {cell('kernel_end_to_host_awake')} |")
    return "\n".join(o).rstrip() + "\n"


# The sessions whose calibration has a callback_after_op_ns spread and whose per-execution pass ran both
# conv-autotune points where the release decides an execution (semaphores 2 and 8).
RELEASE_SESSIONS = ["h200-afterop", "h200-afterop-2", "h200-release-2", "h200-process-release"]


def predictions(d, r):
    """(the calibration's prediction, this process's release) of one run: `sim` and "sim_process_release", or, where
    validate applied the process's ("applied": true), "sim_calibration_release" and `sim`."""
    applied = d.get("process_release", {}).get("applied", False)
    if applied:
        return r["sim_calibration_release"], r["sim"]
    return r["sim"], r.get("sim_process_release")


def outcomes(folder):
    """One host, one calibration, 8 validating processes per point (results/hw/h200-process-outcomes): each process's
    outcome at the executions near an edge against its host pace and its release path; and, over sessions, the
    calibration's release tail against the hardware's outcome where the release decides it."""
    o = [f"# H200: one execution's outcome from one process to the next (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py outcomes {shown(folder)}` from the `validate.json` files under "
         "it and those of the sessions named below; every number here is computed from them (tests/hw checks it).\n"]
    for point in sorted(p.name for p in Path(folder).iterdir() if p.is_dir()):
        files = sorted(Path(folder, point, "runs").glob("*/validate.json"), key=lambda f: int(f.parent.name.rsplit("-", 1)[1]))
        loaded = [(json.loads(f.read_text()), f) for f in files]
        runs = [(d, d["runs"][0]) for d, _ in loaded]
        execs = [e for e in range(runs[0][1]["executions"])
                 if len({r["corrupted_by_execution"][e] for _, r in runs}) > 1 or
                 any(0 < r["corrupted_by_execution"][e] < r["trials"] for _, r in runs)]
        o.append(f"## {point}, immediate + none, {runs[0][1]['trials']} trials per process\n")
        o.append("Per process, in run order: its host pace on the program (the median over its trials of the launch "
                 "cadence over the simulator's, as `sim_host_paced` draws it), the p90 of the release it timed (us), "
                 "and for each execution the hardware's corrupted-trial fraction, then the prediction's probability "
                 "with the calibration's pace and release (cal), with the trials' pace (paced) and with the process's "
                 "release (rel). Executions listed: those whose outcome is not the same in every trial.\n")
        o.append("| process | pace | release p90 | " + " | ".join(f"execution {e}: hw / cal / paced / rel" for e in execs) + " |")
        o.append("|---|---|---|" + "---|" * len(execs))
        err = {"cal": [], "paced": [], "rel": []}
        for i, (d, r) in enumerate(runs, 1):
            cal, rel = predictions(d, r)
            paced = r["sim_host_paced"]
            p = lambda pred, e: pred["manifest_by_execution"][e] / pred["runs"]
            cells = []
            for e in execs:
                hw = r["corrupted_by_execution"][e] / r["trials"]
                for k, pred in (("cal", cal), ("paced", paced), ("rel", rel)):
                    err[k].append(abs(hw - p(pred, e)))
                cells.append(f"{hw:.2f} / {p(cal, e):.2f} / {p(paced, e):.2f} / {p(rel, e):.2f}")
            o.append(f"| {i} | {spread_at(paced['host_pace'], 0.5):.2f} | "
                     f"{spread_at(d['process_release']['measured'], 0.9) / 1e3:.0f} | " + " | ".join(cells) + " |")
        if execs:
            hw_range = [(min(r["corrupted_by_execution"][e] for _, r in runs) / runs[0][1]["trials"],
                         max(r["corrupted_by_execution"][e] for _, r in runs) / runs[0][1]["trials"]) for e in execs]
            widest = max(range(len(execs)), key=lambda i: hw_range[i][1] - hw_range[i][0])
            o.append(f"\nExecution {execs[widest]} ranged from {hw_range[widest][0]:.2f} to {hw_range[widest][1]:.2f} "
                     f"over these {len(runs)} processes. Mean |hw - prediction| over the listed executions and processes: "
                     f"calibration's {statistics.mean(err['cal']):.3f}, with the trials' pace "
                     f"{statistics.mean(err['paced']):.3f}, with the process's release {statistics.mean(err['rel']):.3f}.\n")
        else:
            o.append("\nEvery execution had the same outcome in every trial of every process.\n")
    o.append("## Over sessions: the calibration's release tail against the hardware, where the release decides\n")
    o.append("conv-autotune's per-execution passes: at semaphore 2 a slower release moves the autotuner's zeroing from "
             "execution 2 to 3, at semaphore 8 from 4 to 5. The calibration's callback_after_op_ns at p50 / p75 / p90 "
             "(us), and each execution's hardware fraction (400 trials) and calibrated probability:\n")
    o.append("| session | calibrated release p50 / p75 / p90 | semaphore 2, execution 3: hw / sim | "
             "semaphore 8, execution 5: hw / sim |")
    o.append("|---|---|---|---|")
    p90s = []
    for session in RELEASE_SESSIONS:
        root = Path(folder).parent / session
        q = json.loads((root / "calibration.json").read_text())["spread"]["callback_after_op_ns"]
        cells = []
        for sem, e in ((2, 3), (8, 5)):
            d = json.loads((root / "per-execution" / "conv-autotune" / f"semaphore-{sem}" / "validate.json").read_text())
            r = d["runs"][0]
            cal, _ = predictions(d, r)
            if sem == 8:
                hw8, sim8 = r["corrupted_by_execution"][e] / r["trials"], cal["manifest_by_execution"][e] / cal["runs"]
            cells.append(f"{r['corrupted_by_execution'][e] / r['trials']:.2f} / {cal['manifest_by_execution'][e] / cal['runs']:.2f}")
        o.append(f"| {session} | {spread_at(q, 0.5) / 1e3:.0f} / {spread_at(q, 0.75) / 1e3:.0f} / {spread_at(q, 0.9) / 1e3:.0f} | "
                 + " | ".join(cells) + " |")
        p90s.append((spread_at(q, 0.9), session, hw8, sim8))
    widest = max(p90s)
    rank = lambda v, i: 1 + sorted((x[i] for x in p90s), reverse=True).index(widest[i])
    o.append(f"\nThe calibration with the largest p90 ({widest[1]}) gave the simulator's probability at semaphore 8, "
             f"execution 5, rank {rank(p90s, 3)} of {len(p90s)} from the top, and the hardware's fraction there rank "
             f"{rank(p90s, 2)} of {len(p90s)}.\n")
    return "\n".join(o).rstrip() + "\n"



def point_files(folder):
    """The (scenario, semaphore, validate.json) of a pass folder, by scenario then semaphore."""
    files = [(f.parent.parent.name, int(f.parent.name.split("-")[1]), f) for f in Path(folder).glob("*/semaphore-*/validate.json")]
    return sorted(files, key=lambda x: (x[0], x[1]))


def worst_execution_pp(r, pred):
    """100 x the largest |hw fraction - predicted probability| over a run's executions (validate_summary's)."""
    worst = 0.0
    for hw, sim in zip(r["corrupted_by_execution"], pred["manifest_by_execution"]):
        d = hw / r["trials"] - sim / pred["runs"]
        worst = max(worst, abs(d))
    return 100 * worst


def warmup(folder):
    """One calibration, 8 validating processes per point, each with uncounted warm-up trials before its counted ones
    (results/hw/h200-warmup-outcomes): does the warm-up's pace predict the process's outcome?"""
    o = [f"# H200: does a process's warm-up predict its own trials? (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py warmup {shown(folder)}` from the `validate.json` files under it; "
         "every number here is computed from them (tests/hw checks it).\n"]
    for point in sorted(p.name for p in Path(folder).iterdir() if p.is_dir()):
        files = sorted(Path(folder, point).glob("process-*/validate.json"), key=lambda f: int(f.parent.name.split("-")[1]))
        runs = [json.loads(f.read_text())["runs"][0] for f in files]
        execs = [e for e in range(runs[0]["executions"])
                 if len({r["corrupted_by_execution"][e] for r in runs}) > 1 or
                 any(0 < r["corrupted_by_execution"][e] < r["trials"] for r in runs)]
        o.append(f"## {point}, immediate + none, {runs[0]['warmup']['trials']} warm-up and {runs[0]['trials']} counted "
                 "trials per process\n")
        o.append("Per process, in run order: the median host pace of its warm-up and of its counted trials (each trial's "
                 "launch cadence over the simulator's median), and for each execution the hardware's corrupted-trial "
                 "fraction, then the probability predicted with the calibration's pace (cal), the warm-up's (warm-up) "
                 "and the counted trials' (trials). Executions listed: those whose outcome is not the same in every "
                 "trial.\n")
        o.append("| process | warm-up pace | trials' pace | " +
                 " | ".join(f"execution {e}: hw / cal / warm-up / trials" for e in execs) + " |")
        o.append("|---|---|---|" + "---|" * len(execs))
        err = {"cal": [], "warm": [], "trials": []}
        paces = []
        for i, r in enumerate(runs, 1):
            sim_cadence = r["sim"]["host_cadence_ns"]
            warm_pace = statistics.median(r["warmup"]["host_cadence_by_trial"]) / sim_cadence
            trial_pace = statistics.median(r["host_cadence_by_trial"]) / sim_cadence
            paces.append((warm_pace, trial_pace))
            p = lambda pred, e: pred["manifest_by_execution"][e] / pred["runs"]
            cells = []
            for e in execs:
                hw = r["corrupted_by_execution"][e] / r["trials"]
                for k, key in (("cal", "sim"), ("warm", "sim_warmup_paced"), ("trials", "sim_host_paced")):
                    err[k].append(abs(hw - p(r[key], e)))
                cells.append(f"{hw:.2f} / {p(r['sim'], e):.2f} / {p(r['sim_warmup_paced'], e):.2f} / "
                             f"{p(r['sim_host_paced'], e):.2f}")
            o.append(f"| {i} | {warm_pace:.2f} | {trial_pace:.2f} | " + " | ".join(cells) + " |")
        gaps = [abs(w - t) for w, t in paces]
        o.append(f"\nThe warm-up's median pace differed from the counted trials' by {statistics.median(gaps):.2f} in the "
                 f"median process and by up to {max(gaps):.2f}. Mean |hw - prediction| over the listed executions and "
                 f"processes: calibration's pace {statistics.mean(err['cal']):.3f}, warm-up's "
                 f"{statistics.mean(err['warm']):.3f}, counted trials' {statistics.mean(err['trials']):.3f}.\n")
    return "\n".join(o).rstrip() + "\n"


# The per-execution passes whose files keep each trial's host cadence, and (PREDICTION_SESSIONS) every one with the
# release timed in each validating process, with their `allocsim-hw repredict` folders (repredicted-<pace>-process).
PACE_SESSIONS = ["h200-warmup", "h200-warmup-2", "h200-measured", "h200-measured-2", "h200-trial-release",
                 "h200-trial-release-2", "h200-trial-release-3", "h200-trial-release-4", "h200-trial-release-5",
                 "h200-sweep", "h200-sweep-2", "h200-sweep-3", "h200-wake", "h200-wake-2"]
PREDICTION_SESSIONS = ["h200-process-release"] + PACE_SESSIONS
BLOCK = 20
# The predictions again with the check pass's read order (repredict --check-sweep): (name, key, folder).
SWEPT = [("calibration, check sweep", "sim_repredicted", "repredicted-sweep-calibration-calibration"),
         ("trials' pace + process's release, check sweep", "sim_repredicted", "repredicted-sweep-trials-process"),
         ("trials' pace + releases after each trial, check sweep", "sim_repredicted", "repredicted-sweep-trials-trials")]


def as_predicted(root, session, key, sub):
    """(key, folder) of a prediction of a session. On a session whose calibration has op_check_sweep 1, every
    prediction has the check sweep: a SWEPT one is the same prediction without --check-sweep (validate's own or
    repredict's), and one with every read at the pass's end does not exist there (None, None)."""
    swept = {k[2]: None if k[2].endswith("calibration-calibration") else k[2].replace("sweep-", "") for k in SWEPT}
    cal = json.loads((root / session / "calibration.json").read_text())
    if not cal.get("op_check_sweep", 0):
        return key, sub
    if sub not in swept:
        return None, None
    return ("sim", None) if swept[sub] is None else ("sim_repredicted", swept[sub])


def pace(folder):
    """The host's pace trial by trial within each validating process, and what each way of predicting gets of the
    per-execution acceptance point on every session that timed the release in its processes."""
    root = Path(folder).parent
    o = [f"# H200: the host's pace within a process, and each prediction on every execution (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py pace {shown(folder)}` from the `validate.json` files of the "
         "sessions named below (their per-execution passes: 400 counted trials per point) and of their "
         "`allocsim-hw repredict` folders; every number here is computed from them (tests/hw checks it).\n"]
    o.append(f"## The pace in blocks of {BLOCK} trials\n")
    o.append(f"Each counted trial's host pace (its launch cadence over the simulator's median), as the median of each "
             f"block of {BLOCK} trials in run order: the lowest and highest block, and the largest change from one "
             "block to the next. The warm-up (run first, uncounted) is one more block.\n")
    o.append("| session | scenario | semaphore | warm-up | lowest block | highest block | largest step between blocks |")
    o.append("|---|---|---|---|---|---|---|")
    steps = []
    for session in PACE_SESSIONS:
        for scenario, sem, f in point_files(root / session / "per-execution"):
            r = json.loads(f.read_text())["runs"][0]
            c, s = r["host_cadence_by_trial"], r["sim"]["host_cadence_ns"]
            blocks = [statistics.median(c[i:i + BLOCK]) / s for i in range(0, len(c) - BLOCK + 1, BLOCK)]
            step = max(abs(b - a) for a, b in zip(blocks, blocks[1:]))
            steps.append((step, session, scenario, sem, min(blocks), max(blocks)))
            w = statistics.median(r["warmup"]["host_cadence_by_trial"]) / s
            o.append(f"| {session} | {scenario} | {sem} | {w:.2f} | {min(blocks):.2f} | {max(blocks):.2f} | {step:.2f} |")
    big = max(steps)
    o.append(f"\nThe largest step: {big[0]:.2f} ({big[1]}, {big[2]} at {big[3]}, whose blocks ran from {big[4]:.2f} to "
             f"{big[5]:.2f}). {sum(1 for x in steps if x[0] >= 0.2)} of {len(steps)} points had a step of 0.20 or more.\n")
    o.append("## Each prediction against the per-execution point\n")
    o.append("Points of 8 within 20 pp on every execution, per session, for each prediction: the calibration's; the "
             "host pace of the counted trials (`sim_host_paced`) or of the warm-up (`sim_warmup_paced`); the release "
             "each process timed before its trials (`sim_process_release`); `allocsim-hw repredict` with that release "
             "and the trials' or the warm-up's pace; and with the trials' pace and the releases timed after each trial "
             "(validate --release-per-trial). The last three: `allocsim-hw repredict --check-sweep` of the calibration's, "
             "of the trials' pace + process's release and of the trials' pace + releases after each trial, with the "
             "check pass reading each word at its own time (op_check_sweep, which these sessions' calibrations "
             "predate). `-`: not measured in that session.\n")
    kinds = [("calibration", "sim", None), ("trials' pace", "sim_host_paced", None),
             ("warm-up's pace", "sim_warmup_paced", None), ("process's release", "sim_process_release", None),
             ("trials' pace + process's release", "sim_repredicted", "repredicted-trials-process"),
             ("warm-up's pace + process's release", "sim_repredicted", "repredicted-warmup-process"),
             ("trials' pace + releases after each trial", "sim_repredicted", "repredicted-trials-trials")] + SWEPT
    o.append("| session | " + " | ".join(k[0] for k in kinds) + " |")
    o.append("|---|" + "---|" * len(kinds))
    totals = [[0, 0] for _ in kinds]
    for session in PREDICTION_SESSIONS:
        cells = []
        for i, (_, key, sub) in enumerate(kinds):
            key, sub = as_predicted(root, session, key, sub)
            if key is None:
                cells.append("-")
                continue
            base = root / session / (f"{sub}/per-execution" if sub else "per-execution")
            ok = n = 0
            for _, _, f in point_files(base) if base.is_dir() else []:
                d = json.loads(f.read_text())
                r = d["runs"][0]
                pred_key = key
                if d.get("process_release", {}).get("applied", False) and key in ("sim", "sim_process_release"):
                    pred_key = {"sim": "sim_calibration_release", "sim_process_release": "sim"}[key]
                if pred_key not in r:
                    continue
                n += 1
                ok += worst_execution_pp(r, r[pred_key]) <= 20.0
            cells.append(f"{ok}/{n}" if n else "-")
            if n:
                totals[i][0] += ok
                totals[i][1] += n
        o.append(f"| {session} | " + " | ".join(cells) + " |")
    o.append("| all | " + " | ".join(f"{a}/{b}" for a, b in totals) + " |")
    best = max(range(len(kinds)), key=lambda i: (totals[i][0] / totals[i][1], totals[i][1]))
    o.append(f"\nMost points within 20 pp on every execution: {kinds[best][0]}, {totals[best][0]} of {totals[best][1]}; "
             f"the calibration's, {totals[0][0]} of {totals[0][1]}; the calibration's with the check sweep, "
             f"{totals[len(kinds) - len(SWEPT)][0]} of {totals[len(kinds) - len(SWEPT)][1]}.\n")
    o += execution_bias(root)
    o += pace_and_calibrated_miss(root)
    return "\n".join(o).rstrip() + "\n"


def pace_and_calibrated_miss(root):
    """seed-repro at 32, where the host never waits: the calibrated prediction's signed miss on its worst execution
    against the session's own host pace on that program, over every session with a per-execution pass."""
    rows = []
    for f in sorted(root.glob("*/per-execution/seed-repro/semaphore-32/validate.json")):
        d = json.loads(f.read_text())
        r = d["runs"][0]
        if "host_cadence_by_trial" not in r:
            continue
        key = "sim_calibration_release" if d.get("process_release", {}).get("applied", False) else "sim"
        pred = r[key]
        diffs = [hw / r["trials"] - sim / pred["runs"]
                 for hw, sim in zip(r["corrupted_by_execution"], pred["manifest_by_execution"])]
        worst = max(diffs, key=abs)
        rows.append((statistics.median(r["host_cadence_by_trial"]) / r["sim"]["host_cadence_ns"], 100 * worst,
                     f.parts[-5]))
    o = ["## seed-repro at 32: the calibrated miss follows the session's host pace\n",
         "Per session with a per-execution pass, at seed-repro's semaphore 32 (no semaphore wait): the counted "
         "trials' median host pace on this program (launch cadence over the simulator's median; the calibration "
         "draws a pace of median 1.00) and the calibrated prediction's signed difference, hardware minus "
         "prediction, on the execution where it is largest, by pace.\n",
         "| session | trials' pace, median | calibrated: hw - prediction on the worst execution (pp) |", "|---|---|---|"]
    for pace_median, worst, session in sorted(rows):
        o.append(f"| {session} | {pace_median:.2f} | {worst:+.1f} |")
    paces, worsts = [x[0] for x in rows], [x[1] for x in rows]
    inside = [x for x in rows if 0.9 <= x[0] <= 1.1]
    o.append(f"\nOver {len(rows)} sessions the correlation of the two is {statistics.correlation(paces, worsts):.2f}. "
             f"With the trials' pace within 0.90-1.10, {sum(abs(x[1]) <= 20 for x in inside)} of {len(inside)} sessions "
             f"are within 20 pp; outside it, {sum(abs(x[1]) <= 20 for x in rows if x not in inside)} of "
             f"{len(rows) - len(inside)}.\n")
    return o


# The semaphores at which conv-autotune's host runs far enough ahead to corrupt more than its first executions.
BIAS_SEMAPHORES = (2, 8, 32)


def scratch_executions(root):
    """The executions that validate.json's corruption_pairs show read through the autotuner's scratch (a reader
    named conv_scratch#e), over conv-autotune's per-execution points of PACE_SESSIONS."""
    found = set()
    for session in PACE_SESSIONS:
        for scenario, _, f in point_files(root / session / "per-execution"):
            if scenario == "conv-autotune":
                found |= {p["reader_execution"] for p in json.loads(f.read_text())["runs"][0].get("corruption_pairs", [])
                          if p["reader"].startswith("conv_scratch")}
    return tuple(sorted(found))


def execution_bias(root):
    """The signed difference hw - prediction, execution by execution, averaged over PACE_SESSIONS: a miss that
    every session makes the same way is the model's, not one process's timing."""
    kinds = [("calibration", "sim", None), ("trials' pace", "sim_host_paced", None),
             ("trials' pace + releases after each trial", "sim_repredicted", "repredicted-trials-trials"),
             SWEPT[0], SWEPT[2]]
    SCRATCH_EXECUTIONS = scratch_executions(root)
    o = ["## conv-autotune, execution by execution: the miss every session makes\n",
         "Per execution of conv-autotune, the hardware's corrupted-trial fraction minus each prediction's probability "
         f"(pp), averaged over the sessions of the first table that have the prediction (n). Executions "
         f"{', '.join(map(str, SCRATCH_EXECUTIONS))} (bold) are the ones the autotuner's scratch is read in (the "
         "corruption pairs whose reader is `conv_scratch#e`).\n"]
    execs = None
    rows, scratch = [], {k[0]: [0, 0] for k in kinds}
    for sem in BIAS_SEMAPHORES:
        for name, name_key, name_sub in kinds:
            diffs = []
            for session in PACE_SESSIONS:
                key, sub = as_predicted(root, session, name_key, name_sub)
                if key is None:
                    continue
                f = root / session / (f"{sub}/per-execution" if sub else "per-execution") / "conv-autotune" / \
                    f"semaphore-{sem}" / "validate.json"
                if not f.exists():
                    continue
                r = json.loads(f.read_text())["runs"][0]
                pred = r[key]
                d = [100 * (h / r["trials"] - m / pred["runs"])
                     for h, m in zip(r["corrupted_by_execution"], pred["manifest_by_execution"])]
                diffs.append(d)
                for k in SCRATCH_EXECUTIONS:
                    scratch[name][0] += d[k] < 0
                    scratch[name][1] += 1
            execs = len(diffs[0])
            rows.append((sem, name, len(diffs), [statistics.mean(c) for c in zip(*diffs)]))
    o.append("| semaphore | prediction | n | " + " | ".join(str(k) for k in range(execs)) + " |")
    o.append("|---|---|---|" + "---|" * execs)
    for sem, name, n, m in rows:
        o.append(f"| {sem} | {name} | {n} | " + " | ".join(f"**{x:+.1f}**" if k in SCRATCH_EXECUTIONS else f"{x:+.1f}"
                                                      for k, x in enumerate(m)) + " |")
    swept = {k[0] for k in SWEPT}
    lows = [m[k] for _, name, _, m in rows if name not in swept for k in SCRATCH_EXECUTIONS]
    lows_swept = [m[k] for _, name, _, m in rows if name in swept for k in SCRATCH_EXECUTIONS]
    o.append(f"\nAt semaphores {', '.join(map(str, BIAS_SEMAPHORES))}, "
             f"{'every' if max(lows) < 0 else 'not every'} prediction with every read at the check pass's end put "
             f"executions {', '.join(map(str, SCRATCH_EXECUTIONS))} above the hardware on average: hw - prediction from "
             f"{min(lows):+.1f} to {max(lows):+.1f} pp; with the check sweep, from {min(lows_swept):+.1f} to "
             f"{max(lows_swept):+.1f} pp. Cells (session x semaphore x one of these executions) where the prediction was "
             "above the hardware: " + "; ".join(f"{name}, {a} of {b}" for name, (a, b) in scratch.items()) + ".\n")
    return o


# The passes that timed the release after every counted trial (validate --release-per-trial), their control
# (hw/scripts/h200_release_control.sh, immediate + none and callback policies) and the every-policy passes with it.
TRIAL_RELEASE_SESSIONS = ["h200-trial-release", "h200-trial-release-2", "h200-trial-release-3", "h200-trial-release-4",
                          "h200-trial-release-5", "h200-sweep", "h200-sweep-2"]
RELEASE_CONTROLS = ["h200-release-control", "h200-release-control-callbacks"]
TRIAL_RELEASE_ALL = ["h200-all-trial-release", "h200-all-trial-release-2"]
RELEASE_BLOCK = 40
MIB = 1 << 20


def blocks_of(r):
    """A run's trials in blocks of RELEASE_BLOCK in run order: each block's median release (ns) and median host pace
    (launch cadence over the simulator's median), and the trials' index ranges."""
    by_trial, c, sc = r["release_after_op_by_trial"], r["host_cadence_by_trial"], r["sim"]["host_cadence_ns"]
    ranges = [range(i, min(i + RELEASE_BLOCK, len(by_trial))) for i in range(0, len(by_trial), RELEASE_BLOCK)]
    releases = [statistics.median([x for t in b for x in by_trial[t]]) for b in ranges]
    paces = [statistics.median([c[t] for t in b]) / sc for b in ranges]
    return releases, paces, ranges


def trial_release_points(root):
    """(session, scenario, semaphore, validate.json's object) of every per-execution point of TRIAL_RELEASE_SESSIONS."""
    for session in TRIAL_RELEASE_SESSIONS:
        for scenario, sem, f in point_files(root / session / "per-execution"):
            yield session, scenario, sem, json.loads(f.read_text())


def peaks_and_wakeups(root, session):
    """One every-policy pass that timed the release after each trial: the callback and poll combinations whose
    hardware peak fell outside a prediction's range, and the relay's wake-ups in their trials."""
    o = []
    cal = json.loads((root / session / "calibration.json").read_text())
    cal_max = max(cal["spread_tail"]["callback_latency_ns"][-1], cal["spread_tail"]["callback_after_op_ns"][-1])
    first_all = json.loads(point_files(root / session / "all")[0][2].read_text())["runs"][0]
    o.append(f"`{session}`'s every-policy pass ({first_all['trials']} trials, {first_all['sim']['runs']:,} "
             "simulated runs per combination). Its "
             f"calibration's largest callback wake-up (`callback_latency_ns` or `callback_after_op_ns`, the largest "
             f"sample) was {us(cal_max)} us. Per combination whose hardware peak fell outside the simulator's range "
             "(calibrated, or with the trials' pace and either release): the range on each side and, over its trials, the "
             "largest relay wake-up (HIP's hand-over to the relay's body, one part of that path) at the median trial "
             "and at most.\n")
    o.append("| scenario | semaphore | policy + guard | hw MiB | calibrated MiB | trials' pace + release before the "
             "trials MiB | trials' pace + releases after each trial MiB | relay wake-up, median trial / largest (us) |")
    o.append("|---|---|---|---|---|---|---|---|")
    outside = wake_beyond = counted = inside_sim = inside_before = inside_rep = 0
    for scenario, sem, f in point_files(root / session / "all"):
        again = [json.loads((root / session / sub / "all" / scenario / f"semaphore-{sem}" /
                             "validate.json").read_text())["runs"] for sub in ("repredicted-trials-process",
                                                                               "repredicted-trials-trials")]
        d = json.loads(f.read_text())
        rounds_before = d["process_release"]["rounds"]
        for r, q_before, q in zip(d["runs"], *again):
            # The callback and poll policies, as validate_summary counts them.
            if "callback" not in r["policy"] and "poll" not in r["policy"]:
                continue
            lo, hi = r["peak_bytes_in_use_min"], r["peak_bytes_in_use"]
            sim, before, rep = r["sim"], q_before["sim_repredicted"], q["sim_repredicted"]
            inside = lambda p: p["peak_bytes_in_use_min"] <= lo and hi <= p["peak_bytes_in_use_max"]
            if lo == hi and all(p["peak_bytes_in_use_min"] == p["peak_bytes_in_use_max"] for p in (sim, before, rep)):
                continue  # the same peak in every trial and run: validate_summary's peak table, not its range table
            counted += 1
            inside_sim += inside(sim)
            inside_before += inside(before)
            inside_rep += inside(rep)
            if inside(sim) and inside(before) and inside(rep):
                continue
            outside += 1
            wakes = sorted(t["wake_max_ns"] for t in r.get("callback_trials", [])) or [0]
            wake_beyond += wakes[-1] > cal_max
            o.append(f"| {scenario} | {sem} | {r['policy']} + {r['guard']} | {lo // MIB}-{hi // MIB} | "
                     + " | ".join(f"{p['peak_bytes_in_use_min'] // MIB}-{p['peak_bytes_in_use_max'] // MIB}"
                                  for p in (sim, before, rep)) + " | "
                     f"{us(quantile(wakes, 0.5))} / {us(wakes[-1])} |")
    o.append(f"\nOf {counted} combinations of the callback and poll policies whose peak varies, the hardware's range lies inside the "
             f"calibrated prediction's for {inside_sim}; with the trials' pace, inside it for {inside_before} with the "
             f"release timed before the trials ({rounds_before} rounds) and for {inside_rep} with the releases timed after each "
             f"trial ({len(r['release_after_op_by_trial'][0])} per trial). Of the {outside} listed, in {wake_beyond} a trial's relay wake-up alone was longer than "
             f"the calibration's largest callback wake-up ({us(cal_max)} us).\n")
    return o


def trial_release(folder):
    """The semaphore release timed after every trial: does it move within a process, does timing it change the trials
    it sits between, and what it and the trials' pace make of the per-execution and peak points."""
    root = Path(folder).parent
    o = [f"# H200: the semaphore release trial by trial (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py trial-release {shown(folder)}` from the `validate.json` and "
         "`calibration.json` files of the sessions named below and of their `allocsim-hw repredict` folders; every "
         "number here is computed from them (tests/hw checks it). What each way of predicting makes of these "
         "sessions' per-execution points is in `../h200-warmup/analysis.md`, beside every other session's.\n"]
    o.append("## The release within a process\n")
    d0 = next(trial_release_points(root))[3]
    o.append(f"Each validating process timed {d0['process_release']['rounds']} releases before its trials "
             f"(`process_release`) and {len(d0['runs'][0]['release_after_op_by_trial'][0])} after each of its "
             f"{d0['runs'][0]['trials']} counted trials (`release_after_op_by_trial`): the kernel's end to the callback's body, in us. "
             f"Blocks: the trials' releases in blocks of {RELEASE_BLOCK} trials in run order, the lowest and highest "
             "block median.\n")
    o.append("| session | scenario | semaphore | before the trials p50 / p90 | after each trial p50 / p90 / p99 | "
             "block medians, lowest - highest | trials' pace, block medians |")
    o.append("|---|---|---|---|---|---|---|")
    moves = []
    for session, scenario, sem, d in trial_release_points(root):
        r = d["runs"][0]
        before = d["process_release"]["measured"]
        pooled = sorted(x for t in r["release_after_op_by_trial"] for x in t)
        medians, paces, _ = blocks_of(r)
        moves.append((max(medians) - min(medians), session, scenario, sem, min(medians), max(medians), before[3]))
        o.append(f"| {session} | {scenario} | {sem} | {us(before[3])} / {us(before[5])} | "
                 f"{us(quantile(pooled, 0.5))} / {us(quantile(pooled, 0.9))} / {us(quantile(pooled, 0.99))} | "
                 f"{us(min(medians))} - {us(max(medians))} | {min(paces):.2f} - {max(paces):.2f} |")
    big = max(moves)
    o.append(f"\nThe block medians moved by {us(statistics.median([m[0] for m in moves]))} us at the median point and "
             f"by up to {us(big[0])} us ({big[1]}, {big[2]} at {big[3]}: {us(big[4])} to {us(big[5])} us, against "
             f"{us(big[6])} us timed before its trials).\n")

    o.append("## What the executions near an edge follow, block by block\n")
    o.append(f"Per point, the execution whose corrupted-trial fraction varies most between the blocks of "
             f"{RELEASE_BLOCK} trials (none: every block the same), the range of that fraction over the blocks, and "
             "its correlation (Pearson's r over the blocks) with each block's median release and with its median "
             "host pace.\n")
    o.append("| session | scenario | semaphore | execution | fraction over the blocks | r with the release | "
             "r with the pace |")
    o.append("|---|---|---|---|---|---|---|")
    follows = []
    for session, scenario, sem, d in trial_release_points(root):
        r = d["runs"][0]
        by_trial = r["corrupted_executions_by_trial"]
        release_m, pace_m, ranges = blocks_of(r)
        fractions = [[sum(e in by_trial[t] for t in b) / len(b) for b in ranges] for e in range(r["executions"])]
        e = max(range(r["executions"]), key=lambda k: (statistics.pvariance(fractions[k]), -k))
        if statistics.pvariance(fractions[e]) == 0:
            o.append(f"| {session} | {scenario} | {sem} | none | - | - | - |")
            continue
        r_release = statistics.correlation(release_m, fractions[e])
        r_pace = statistics.correlation(pace_m, fractions[e])
        follows.append((scenario, sem, abs(r_release) > abs(r_pace)))
        o.append(f"| {session} | {scenario} | {sem} | {e} | {min(fractions[e]):.2f} - {max(fractions[e]):.2f} | "
                 f"{r_release:+.2f} | {r_pace:+.2f} |")
    points = sorted({(sc, se) for sc, se, _ in follows})
    o.append("\nThe release correlates more strongly than the pace at " +
             "; ".join(f"{sc} {se}: {sum(1 for a, b, x in follows if (a, b) == (sc, se) and x)} of "
                       f"{sum(1 for a, b, _ in follows if (a, b) == (sc, se))}" for sc, se in points) + ".\n")
    o.append("## Does timing the release change the trials?\n")
    o.append("Pairs of validating processes on one host, one timing the release after every trial and one not, their "
             "order alternating (`hw/scripts/h200_release_control.sh`). Per pair: the median host pace of each "
             "process's trials and its corrupted-execution rate (immediate + none), or its trials whose peak rose "
             "above the simulator's lowest and the largest relay wake-up of a callback in any of its trials (callback "
             "policies).\n")
    for control in RELEASE_CONTROLS:
        for point in sorted(p.name for p in (root / control).iterdir() if p.is_dir()):
            arms = {}
            for f in (root / control / point).glob("*/validate.json"):
                arm, i = f.parent.name.rsplit("-", 1)
                arms[(arm, int(i))] = json.loads(f.read_text())
            pairs = sorted({i for _, i in arms})
            first = arms[("timed", pairs[0])]["runs"][0]
            o.append(f"### {control}: {point}, {first['trials']} trials per process, "
                     f"{len(arms[('timed', pairs[0])]['runs'][0]['release_after_op_by_trial'][0])} releases timed "
                     "after each trial in the timed one\n")
            if first["policy"] == "immediate":
                o.append("| pair | pace, timed | pace, untimed | rate, timed | rate, untimed |")
                o.append("|---|---|---|---|---|")
                dp, dr = [], []
                for i in pairs:
                    t, u = arms[("timed", i)]["runs"][0], arms[("untimed", i)]["runs"][0]
                    pt = statistics.median(t["host_cadence_by_trial"]) / t["sim"]["host_cadence_ns"]
                    pu = statistics.median(u["host_cadence_by_trial"]) / u["sim"]["host_cadence_ns"]
                    dp.append(pt - pu)
                    dr.append(100 * (t["corrupted_rate"] - u["corrupted_rate"]))
                    o.append(f"| {i} | {pt:.2f} | {pu:.2f} | {100 * t['corrupted_rate']:.1f}% | "
                             f"{100 * u['corrupted_rate']:.1f}% |")
                se = statistics.stdev(dp) / len(dp) ** 0.5
                o.append(f"\nTimed minus untimed, over the pairs: pace {statistics.mean(dp):+.3f} on average, standard "
                         f"error {se:.3f} ({min(dp):+.2f} to {max(dp):+.2f}, {sum(1 for x in dp if x > 0)} of {len(dp)} "
                         "above 0); "
                         f"rate {statistics.mean(dr):+.1f} pp on average ({min(dr):+.1f} to {max(dr):+.1f}).\n")
            else:
                o.append("| pair | policy | trials above the simulator's lowest peak, timed / untimed | "
                         "largest relay wake-up (us), timed / untimed |")
                o.append("|---|---|---|---|")
                high = {"timed": [0, 0], "untimed": [0, 0]}
                for i in pairs:
                    for k in range(len(arms[("timed", i)]["runs"])):
                        cells = []
                        for arm in ("timed", "untimed"):
                            r = arms[(arm, i)]["runs"][k]
                            n = sum(1 for t in r["callback_trials"]
                                    if t["peak_bytes_in_use"] > r["sim"]["peak_bytes_in_use_min"])
                            high[arm][0] += n
                            high[arm][1] += len(r["callback_trials"])
                            cells.append((n, max(t["wake_max_ns"] for t in r["callback_trials"])))
                        o.append(f"| {i} | {arms[('timed', i)]['runs'][k]['policy']} | {cells[0][0]} / {cells[1][0]} | "
                                 f"{us(cells[0][1])} / {us(cells[1][1])} |")
                o.append(f"\nTrials above the simulator's lowest peak: {high['timed'][0]} of {high['timed'][1]} timed, "
                         f"{high['untimed'][0]} of {high['untimed'][1]} untimed.\n")

    # What each prediction makes of the per-execution point on these sessions is in `pace`'s table
    # (results/hw/h200-warmup/analysis.md), beside every other session's.
    o.append("## Peaks of the callback and poll policies, and the callback thread's wake-ups\n")
    for session in TRIAL_RELEASE_ALL:
        o.append(f"### {session}\n")
        o += peaks_and_wakeups(root, session)
    return "\n".join(o).rstrip() + "\n"


def first_launch_after_wake(root, o):
    """Where the longer gap after a wait goes: each blocking semaphore wait (over 20 us) of a session's
    timeline at semaphore 1 or 2, the host's first launch after it (op k) and the gap from it to the
    next launch, against the same gap (ops k to k + 1) in the session's timeline at semaphore 32, where
    the host did not wait there; the simulator's two gaps likewise."""
    rows = collections.defaultdict(list)
    for ref in sorted(root.glob("*/timeline/timeline-32.json.gz")):
        c32 = json.load(gzip.open(ref))["combinations"][0]
        if not c32["ops"] or "enqueued_ns" not in c32["ops"][0]:
            continue
        h32, s32 = by_enqueue(c32["ops"]), by_enqueue(c32["sim_ops"])
        for sem in (1, 2):
            f = ref.parent / f"timeline-{sem}.json.gz"
            if not f.exists():
                continue
            c = json.load(gzip.open(f))["combinations"][0]
            if "semaphore_waits" not in c:
                continue
            hw, sim = by_enqueue(c["ops"]), by_enqueue(c["sim_ops"])
            if not (len(hw) == len(sim) == len(h32) == len(s32)):
                continue
            enq = [x["enqueued_ns"] for x in hw]
            for w in c["semaphore_waits"]:
                if w["acquired_ns"] - w["since_ns"] <= 20_000:
                    continue
                k = next((i for i, e in enumerate(enq) if e >= w["acquired_ns"]), None)
                if k is None or k + 1 >= len(enq):
                    continue
                gap = lambda ops, i: ops[i + 1]["enqueued_ns"] - ops[i]["enqueued_ns"]
                rows[sem].append((enq[k] - w["acquired_ns"], gap(hw, k), gap(h32, k), gap(sim, k), gap(s32, k)))
    o.append("\n## The first launch after a wait, against the same launch at semaphore 32\n")
    o.append("Per blocking semaphore wait (over 20 us) in a session's timeline, trial 0: from the host awake to its "
             "first launch (op k), the gap from that launch to the next (k to k + 1), and the same gap in the "
             "session's timeline at semaphore 32, where the host did not wait before op k; the same two gaps in "
             "the simulator. Medians in us; the excess is the median of each wait's gap less its gap at 32.\n")
    o.append("| semaphore | waits | awake to launch k | gap k (hw) | at 32 (hw) | excess (hw), p10 / p50 / p90 | gap k (sim) | at 32 (sim) |")
    o.append("|---|---|---|---|---|---|---|---|")
    for sem, v in sorted(rows.items()):
        col = lambda j: statistics.median(x[j] for x in v) / 1e3
        ex = sorted(x[1] - x[2] for x in v)
        o.append(f"| {sem} | {len(v)} | {col(0):.1f} | {col(1):.1f} | {col(2):.1f} | {quantile(ex, 0.1) / 1e3:.1f} / "
                 f"{quantile(ex, 0.5) / 1e3:.1f} / {quantile(ex, 0.9) / 1e3:.1f} | {col(3):.1f} | {col(4):.1f} |")


def post_wake(folder):
    """The host's launch gaps after a blocking semaphore wait, H200 against the simulator, over every
    session beside folder: why the host pace is highest at semaphore 1 and near 1 at 32."""
    root = Path(folder).parent
    waited_ns = 2000
    o = [f"# H200: the host's launch gaps after a semaphore wait (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py post-wake {shown(folder)}` from the `timeline/timeline-*.json.gz` "
         "files and the per-execution passes' `validate.json` files of the sessions beside it; every number here is "
         "computed from them.\n"]
    gaps = collections.defaultdict(lambda: collections.defaultdict(list))
    waited = collections.defaultdict(lambda: collections.defaultdict(list))
    timelines = 0
    for f in sorted(root.glob("*/timeline/timeline-*.json.gz")):
        d = json.load(gzip.open(f))
        for c in d["combinations"]:
            if c["policy"] != "immediate" or not c["ops"] or "enqueued_ns" not in c["ops"][0]:
                continue
            hw, sim = by_enqueue(c["ops"]), by_enqueue(c["sim_ops"])
            if len(hw) != len(sim):
                continue
            timelines += 1
            waits = [w["acquired_ns"] for w in c.get("semaphore_waits", []) if w["acquired_ns"] - w["since_ns"] > waited_ns]
            for i in range(1, len(hw)):
                h0, h1 = hw[i - 1]["enqueued_ns"], hw[i]["enqueued_ns"]
                gaps[d["semaphore"]][i].append((h1 - h0, sim[i]["enqueued_ns"] - sim[i - 1]["enqueued_ns"]))
                waited[d["semaphore"]][i].append(any(h0 <= a <= h1 for a in waits))
    sems = sorted(gaps)
    o.append(f"## Launch gaps by index, {timelines} timelines (conv-autotune, immediate + none)\n")
    o.append("Median gap in us, hardware / simulator, and the fraction of timelines whose gap held a semaphore wait.\n")
    o.append("| gap | " + " | ".join(f"semaphore {s}" for s in sems) + " |")
    o.append("|---|" + "---|" * len(sems))
    for i in range(1, 40):
        row = []
        for s in sems:
            v = gaps[s][i]
            row.append("-" if not v else "%.1f / %.1f (%.1f)" % (statistics.median(x[0] for x in v) / 1e3,
                                                                  statistics.median(x[1] for x in v) / 1e3,
                                                                  sum(waited[s][i]) / len(v)))
        o.append(f"| {i} | " + " | ".join(row) + " |")
    first_launch_after_wake(root, o)
    by = collections.defaultdict(dict)
    for f in sorted(root.glob("*/per-execution/*/semaphore-*/validate.json")):
        d = json.load(open(f))
        r = d["runs"][0]
        if "host_cadence_ns" not in r or "host_cadence_ns" not in r["sim"]:
            continue
        by[(f.parts[-5], d["scenario"])][d["semaphore"]] = (r["host_cadence_ns"], r["sim"]["host_cadence_ns"], r["executions"])
    extra = collections.defaultdict(list)
    for key, m in by.items():
        if 32 not in m:
            continue
        h32, s32, n = m[32]
        for s, (h, sim, _) in m.items():
            if s != 32:
                extra[(key[1], s)].append(((h - h32) - (sim - s32)) / n)
    o.append("\n## Cadence per execution against semaphore 32, per-execution passes\n")
    o.append("(hw cadence - sim cadence) at the semaphore minus the same at 32, over executions, in us.\n")
    o.append("| scenario | semaphore | sessions | median | min | max |")
    o.append("|---|---|---|---|---|---|")
    for (scenario, s), v in sorted(extra.items()):
        o.append(f"| {scenario} | {s} | {len(v)} | {statistics.median(v) / 1e3:.1f} | {min(v) / 1e3:.1f} | {max(v) / 1e3:.1f} |")
    return "\n".join(o).rstrip() + "\n"


# The sessions of hw/scripts/h200_spin_edge.sh: the first lengthens the spin process by process, the
# other two repeat two spins four times each, one with every process under taskset.
SPIN_SESSIONS = ["h200-spin-edge", "h200-spin-pinned", "h200-spin-unpinned"]


def spin_edge(folder):
    """seed-repro's execution 1 at semaphore 32, process by process, against the first spin's length."""
    root = Path(folder).resolve().parent
    rows = []
    for session in SPIN_SESSIONS:
        commands = (root / session / "commands.txt").read_text().splitlines()
        pinned = any("taskset -c" in c for c in commands)
        for c in commands:
            if " validate " not in c:
                continue
            out = c.split("--out ")[1].split()[0]
            f = REPO / out / "validate.json"
            d = json.load(open(f))
            r = d["runs"][0]
            n = r["trials"]
            spin = int(c.split("spin_ns=")[1].split()[0]) // 1000
            cad = sorted(r["host_cadence_by_trial"])
            sim_cad = r["sim"]["host_cadence_ns"]
            pace = (cad[n // 10] / sim_cad, statistics.median(cad) / sim_cad, cad[9 * n // 10] / sim_cad)
            rate = lambda key: r[key]["manifest_by_execution"][1] / r[key]["runs"]
            rows.append((session, Path(out).name, spin, pinned, pace, r["corrupted_by_execution"][1] / n,
                         rate("sim"), rate("sim_host_paced")))
    o = ["# H200: seed-repro's execution 1 at semaphore 32, process by process (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py spin-edge {shown(folder)}` from the validate.json files of "
         + ", ".join(f"`results/hw/{s}`" for s in SPIN_SESSIONS) + " (hw/scripts/h200_spin_edge.sh; each row is one "
         "process, in the order it ran; each session calibrated first, in a process of its own). Execution 1 corrupts "
         "when the host is still enqueueing the trial's memsets once the GPU has run the first spin (`spin_ns`, 1 ms "
         "in the scenario) and filled X#1: the trial's whole host time races that spin. Pace: the trials' launch "
         "cadence over the simulator's median, p10 / p50 / p90; rates: trials (hardware) or simulated runs with a "
         "corruption in execution 1; host-paced: the prediction drawing each run's pace from the trials' "
         "(`sim_host_paced`).\n",
         "| session | process | spin (us) | taskset | trials' pace | hw | calibrated | host-paced |",
         "|---|---|---|---|---|---|---|---|"]
    for session, name, spin, pinned, pace, hw, cal, paced in rows:
        o.append(f"| {session} | {name} | {spin} | {'yes' if pinned else 'no'} | {pace[0]:.2f} / {pace[1]:.2f} / "
                 f"{pace[2]:.2f} | {100 * hw:.1f}% | {100 * cal:.1f}% | {100 * paced:.1f}% |")
    o.append("\n## The same settings, process after process\n")
    o.append("| session | spin (us) | processes | hw, lowest - highest | spread (pp) | trials' pace p50, lowest - highest |")
    o.append("|---|---|---|---|---|---|")
    widest = {}
    groups = collections.defaultdict(list)
    for row in rows:
        groups[(row[0], row[2], row[3])].append(row)
    for (session, spin, pinned), g in groups.items():
        if len(g) < 2:
            continue
        lo, hi = min(x[5] for x in g), max(x[5] for x in g)
        o.append(f"| {session} | {spin} | {len(g)} | {100 * lo:.1f}% - {100 * hi:.1f}% | {100 * (hi - lo):.1f} | "
                 f"{min(x[4][1] for x in g):.2f} - {max(x[4][1] for x in g):.2f} |")
        if pinned not in widest or hi - lo > widest[pinned][2]:
            widest[pinned] = (session, spin, hi - lo, lo, hi)
    within = lambda i: sum(1 for x in rows if abs(x[5] - x[i]) <= 0.20)
    worst = lambda i: max(abs(x[5] - x[i]) for x in rows)
    spread = lambda w: (f"up to {100 * w[2]:.1f} points ({w[0]}, spin {w[1]} us: {100 * w[3]:.1f}% to "
                        f"{100 * w[4]:.1f}%)")
    text = ("\nAt the same settings, one process after another on one host, the hardware's rate on execution 1 spread "
            f"over {spread(widest[False])}")
    if True in widest:
        text += f"; with every process under the same `taskset -c`, over {spread(widest[True])}"
    paces = [x[4][1] for x in rows]
    hws = [x[5] for x in rows]
    text += (f". The host-paced prediction was within 20 pp of {within(7)} of {len(rows)} processes (largest "
             f"difference {100 * worst(7):.1f} pp); the calibrated one, which knows only the calibrating process, of "
             f"{within(6)} (largest {100 * worst(6):.1f} pp). Over the {len(rows)} processes (every spin) the "
             f"correlation of the hardware's rate with the host-paced prediction is "
             f"{statistics.correlation([x[7] for x in rows], hws):.2f}.")
    o.append(text)
    return "\n".join(o).rstrip() + "\n"


def cpu_probe(folder):
    """Each validation's host pace against the CPU's speed and the hypervisor's steal while it ran."""
    root = Path(folder).resolve()
    probes = {f.stem.split("-")[1]: [tuple(map(int, line.split())) for line in open(f)]
              for f in sorted(root.glob("probe-*.txt"))}
    stat = [(int(line.split()[0]), list(map(int, line.split()[2:]))) for line in open(root / "stat.txt")]
    rows = []
    for line in open(root / "processes.txt"):
        name, t0, t1 = line.split()
        t0, t1 = int(t0), int(t1)
        d = json.load(open(root / name / "validate.json"))
        r = d["runs"][0]
        pace = statistics.median(r["host_cadence_by_trial"]) / r["sim"]["host_cadence_ns"]
        window = [x for x in stat if t0 <= x[0] <= t1]
        ticks = sum(window[-1][1]) - sum(window[0][1])
        steal = (window[-1][1][7] - window[0][1][7]) / ticks  # /proc/stat's eighth number: steal
        probe = statistics.median(x[1] for v in probes.values() for x in v if t0 <= x[0] <= t1) / 1e6
        rows.append((name, pace, steal, probe, d["process_pace"]["pace"], r["corrupted_by_execution"][1] / r["trials"],
                     r["sim_host_paced"]["manifest_by_execution"][1] / r["sim_host_paced"]["runs"],
                     r["sim"]["manifest_by_execution"][1] / r["sim"]["runs"]))
    o = ["# H200: the host's pace against the CPU's speed and the hypervisor's steal (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py cpu-probe {shown(folder)}` from its files "
         "(hw/scripts/h200_cpu_probe.sh): consecutive validations of seed-repro at semaphore 32, each a process under "
         "`taskset -c 2-5`, while a probe on each of CPUs " + ", ".join(sorted(probes, key=int)) + " timed a fixed CPU-bound loop "
         "every 50 ms and /proc/stat was read every 0.5 s. Per process: its trials' median host pace (launch cadence "
         "over the simulator's median), the share of all CPUs' time the hypervisor stole while it ran, the probes' "
         "median loop time, the pace of the calibration's host-pace workload run first in the same process "
         "(`process_pace`), and execution 1's rate on the hardware, host-paced and calibrated.\n",
         "| process | trials' pace | steal | probe loop (ms) | workload pace | hw | host-paced | calibrated |",
         "|---|---|---|---|---|---|---|---|"]
    for name, pace, steal, probe, workload, hw, paced, cal in rows:
        o.append(f"| {name} | {pace:.2f} | {100 * steal:.2f}% | {probe:.3f} | {workload:.2f} | {100 * hw:.1f}% | "
                 f"{100 * paced:.1f}% | {100 * cal:.1f}% |")
    col = lambda i: [x[i] for x in rows]
    r_steal, r_probe, r_workload = (statistics.correlation(col(1), col(i)) for i in (2, 3, 4))
    o.append(f"\nOver the {len(rows)} processes the trials' pace correlates with the steal at {r_steal:.2f}, with the "
             f"probes' loop time at {r_probe:.2f} and with the host-pace workload's pace in the same process at "
             f"{r_workload:.2f}. Execution 1 on the hardware ranged from {100 * min(col(5)):.1f}% to "
             f"{100 * max(col(5)):.1f}%; the host-paced prediction was within 20 pp of "
             f"{sum(1 for x in rows if abs(x[5] - x[6]) <= 0.2)} of {len(rows)} processes, the calibrated one of "
             f"{sum(1 for x in rows if abs(x[5] - x[7]) <= 0.2)}.")
    return "\n".join(o).rstrip() + "\n"


# The sessions that recorded each trial's host CPU, steal, CPU probe or calls (validate from commit
# 631174d on): hw/scripts/h200_cpu_probe.sh (-2) and h200_host_cpu.sh.
HOST_CPU_SESSIONS = ["h200-cpu-probe-2", "h200-host-cpu", "h200-host-cpu-2", "h200-host-cpu-3"]
HOST_CPU_BLOCK = 50  # trials per block


def host_cpu(folder):
    """Trial by trial: the host pace against the trials' CPU, the steal, a CPU probe and the calls' times."""
    root = Path(folder).resolve().parent
    b = HOST_CPU_BLOCK
    blocks = lambda v: [statistics.median(v[k:k + b]) for k in range(0, len(v) - b + 1, b)]
    rows = []
    for session in HOST_CPU_SESSIONS:
        for c in (root / session / "commands.txt").read_text().splitlines():
            if " validate " not in c:
                continue
            out = c.split("--out ")[1].split()[0]
            r = json.load(open(REPO / out / "validate.json"))["runs"][0]
            sim = r["sim"]["host_cadence_ns"]
            pace = [x / sim for x in r["host_cadence_by_trial"]]
            row = {"session": session, "process": Path(out).name, "pinned": "--host-cpu" in c or "taskset" in c,
                   "trials": len(pace), "pace": statistics.median(pace), "pace_blocks": blocks(pace),
                   "steal": r.get("steal_share")}
            if "host_cpu_by_trial" in r:
                row["cpus"] = len(set(r["host_cpu_by_trial"]))
            if "cpu_probe_ns_by_trial" in r:
                probe = r["cpu_probe_ns_by_trial"]
                row["probe_blocks"] = blocks(probe)
                row["r_probe"] = statistics.correlation(pace, probe)
            calls = r.get("call_ns_by_trial", {})
            for kind in ("launch", "pool_allocate"):
                if kind in calls:
                    row["r_" + kind] = statistics.correlation(pace, calls[kind])
            rows.append(row)
    spread = lambda v: f"{min(v):.2f} - {max(v):.2f}"
    opt = lambda row, key, fmt: fmt % row[key] if row.get(key) is not None else "-"
    o = ["# H200: the host pace trial by trial, against the CPU, the steal and the calls (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py host-cpu {shown(folder)}` from the validate.json files of "
         + ", ".join(f"`results/hw/{s}`" for s in HOST_CPU_SESSIONS) + ": validations of seed-repro at semaphore 32, "
         "each its own process, whose validate recorded trial by trial the CPU the trials' thread was on "
         "(`host_cpu_by_trial`), the hypervisor's steal (`steal_ticks_by_trial`), a fixed register-only CPU work "
         "unit timed after the trial on the same thread (`cpu_probe_ns_by_trial`, hw/include/allocsim/hw/cpu_probe.h) "
         "and the host time in each kind of backend call (`call_ns_by_trial`), as far as its binary had them. Pace: "
         "each trial's launch cadence over the simulator's median; blocks: medians of " + str(b) + " consecutive "
         "trials; pinned: `taskset` on the process or `validate --host-cpu` on the trials' thread; r: Pearson's "
         "over the trials between the pace and that time.\n",
         "| session | process | pinned | CPUs used | pace p50 | pace, blocks | steal | probe, blocks (us) | r probe | "
         "r launch | r pool_allocate |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        probe = "%.0f - %.0f" % (min(row["probe_blocks"]) / 1e3, max(row["probe_blocks"]) / 1e3) if "probe_blocks" in row else "-"
        o.append(f"| {row['session']} | {row['process']} | {'yes' if row['pinned'] else 'no'} | "
                 f"{row.get('cpus', '-')} | {row['pace']:.2f} | {spread(row['pace_blocks'])} | "
                 f"{opt(row, 'steal', '%.2f%%') if row.get('steal') is None else '%.2f%%' % (100 * row['steal'])} | "
                 f"{probe} | {opt(row, 'r_probe', '%.2f')} | {opt(row, 'r_launch', '%.2f')} | "
                 f"{opt(row, 'r_pool_allocate', '%.2f')} |")
    one_cpu = [row for row in rows if row.get("cpus") == 1]
    moved = lambda v: max(v) / min(v) - 1
    probed = [row for row in rows if "probe_blocks" in row]
    launch = [row["r_launch"] for row in rows if "r_launch" in row]
    pool = [row["r_pool_allocate"] for row in rows if "r_pool_allocate" in row]
    text = (f"\nOn one CPU all its counted trials (pinned or not: {len(one_cpu)} processes), a process's blocks of "
            f"{b} trials still ran at paces up to {100 * max(moved(row['pace_blocks']) for row in one_cpu):.0f}% apart; "
            f"the steal over any process's trials was at most "
            f"{100 * max(row['steal'] for row in rows if row.get('steal') is not None):.2f}% of the CPUs' time.")
    if probed:
        text += (f" The CPU probe's blocks moved by at most {100 * max(moved(row['probe_blocks']) for row in probed):.0f}% "
                 f"within a process while the pace's moved by up to "
                 f"{100 * max(moved(row['pace_blocks']) for row in probed):.0f}% in the same processes; trial by trial "
                 f"the two correlate at {min(row['r_probe'] for row in probed):.2f} to "
                 f"{max(row['r_probe'] for row in probed):.2f}.")
    if launch:
        text += (f" In the {len(launch)} processes that timed their calls, the launches' time correlates with the pace "
                 f"at {min(launch):.2f} to {max(launch):.2f}, and so does the allocator model's own bookkeeping "
                 f"(pool_allocate, no driver call) at {min(pool):.2f} to {max(pool):.2f}: what the trials' thread did "
                 "slowed together, driver calls and plain code that works on memory alike, while a loop that works in "
                 "registers did not.")
    o.append(text)
    return "\n".join(o).rstrip() + "\n"


def handover(folder):
    """calibrate's hand-over order of two streams' callbacks (hw/src/gpu/handover_order.h), process by process."""
    folder = Path(folder)
    rows = []
    for log in sorted(folder.glob("*/log-*.txt")):
        for variant, prefix in (("on the streams", "handover_order_"),
                                ("through callback streams", "handover_order_via_callback_streams_")):
            x = calibrate_extras(log, prefix)
            x.pop("via_callback_streams_rounds", None)  # the other variant's lines share the prefix
            if "rounds" in x:
                rows.append((log.relative_to(folder), variant, x))
    o = ["# H200: does the driver hand two streams' callbacks to the relay out of their order? (analysis)\n",
         f"Generated by `hw/scripts/timeline_analysis.py handover {shown(folder)}` from the calibrate logs below it "
         "(`extra handover_order_*`). Each round: a callback enqueued on an idle stream (ready at once), then a 40 us "
         "kernel and a callback behind it on another stream, as seed-repro's deferred `scratch` free and semaphore "
         "release meet at semaphore 1; inverted: the relay got the first after the second. Hand-over: from the "
         "callback's enqueue (the second's: its kernel's) to HIP handing it to the relay.\n",
         "| log | callbacks | rounds | inverted | first: hand-over p50 / p99 / max (us) | second: hand-over p50 / p99 / "
         "max (us) |", "|---|---|---|---|---|---|"]
    for log, variant, x in rows:
        o.append(f"| {log} | {variant} | {x['rounds']:.0f} | {x['inverted']:.0f} | "
                 f"{us(x['first_p50_ns'])} / {us(x['first_p99_ns'])} / {us(x['first_max_ns'])} | "
                 f"{us(x['second_p50_ns'])} / {us(x['second_p99_ns'])} / {us(x['second_max_ns'])} |")
    rounds = sum(x["rounds"] for _, _, x in rows)
    inverted = sum(x["inverted"] for _, _, x in rows)
    processes = len({log for log, _, _ in rows})
    o.append(f"\nIn {rounds:,.0f} rounds over {processes} calibrate processes the first callback was handed over after the "
             f"second {inverted:.0f} times." + (
                 " The isolated pattern does not reproduce the inversion that validate's callback log caught in "
                 "seed-repro (results/hw/h200-peak-cause-2), so calibrate cannot measure a rate for the simulator to "
                 "draw." if inverted == 0 else f" That is {inverted / rounds:.2e} of the rounds."))
    return "\n".join(o).rstrip() + "\n"


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) != 2 or args[0] not in ("edge", "launch", "wake", "chain", "callbacks", "queue", "process", "release",
                                         "outcomes", "warmup", "pace", "trial-release", "post-wake", "spin-edge",
                                         "cpu-probe", "host-cpu", "handover"):
        print(__doc__, file=sys.stderr)
        return 2
    text = {"edge": edge, "launch": launch, "wake": wake, "chain": chain, "callbacks": callbacks, "queue": queue,
            "process": process, "release": release, "outcomes": outcomes, "warmup": warmup, "pace": pace,
            "trial-release": trial_release, "post-wake": post_wake, "spin-edge": spin_edge,
            "cpu-probe": cpu_probe, "host-cpu": host_cpu, "handover": handover}[args[0]](args[1])
    out = Path(args[1]) / "analysis.md"
    return write_or_check(out, text, check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
