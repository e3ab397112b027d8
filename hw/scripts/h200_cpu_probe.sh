#!/usr/bin/env bash
# Is the host's pace on a program the CPU's speed? (issue 17) While PROCESSES (default 8)
# validations of seed-repro at semaphore 32 (TRIALS trials each, default 200) run one after another
# on CPUS (default 2-5, each process under taskset -c), a probe on each of PROBE_CPUS (default 9 12)
# times a fixed CPU-bound loop every 50 ms (probe-CPU.txt: wall clock ns, loop ns), and /proc/stat's
# cpu line is read every 0.5 s (stat.txt: wall clock ns, then the line: its eighth number is the
# time stolen by the hypervisor). processes.txt has each validation's start and end (wall clock
# ns), so the probe's speed and the steal during each process can be set against that process's
# host pace (timeline_analysis.py cpu-probe). Run on the device machine from the repo root with the
# binary and its libraries in .hwcarry/ (hw/README.md). Writes $OUT/$NAME/ (default h200-cpu-probe).
set -u
NAME=${NAME:-h200-cpu-probe}  # the results folder this run becomes
source hw/scripts/run_lib.sh
{ lscpu; nproc; } > "$O/cpus.txt" 2>&1
B="taskset -c ${CPUS:-2-5} $B"
P="$O/calibration.json"
run $B calibrate --out "$P"
for cpu in ${PROBE_CPUS:-9 12}; do
python3 - "$O/probe-$cpu.txt" "$O/probe.stop" "$cpu" <<'PY' &
import os, sys, time
out, stop, cpu = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.sched_setaffinity(0, {cpu})
with open(out, "w") as f:
    while not os.path.exists(stop):
        t0 = time.perf_counter_ns()
        x = 0
        for i in range(20000):
            x += i * i
        f.write(f"{time.time_ns()} {time.perf_counter_ns() - t0}\n")
        time.sleep(0.05)
PY
done
( while [ ! -e "$O/probe.stop" ]; do echo "$(date +%s%N) $(grep '^cpu ' /proc/stat)"; sleep 0.5; done ) > "$O/stat.txt" &
sleep 2
for i in $(seq 1 "${PROCESSES:-8}"); do
  t0=$(date +%s%N)
  run $B validate seed-repro --policies immediate --guards none --trials "${TRIALS:-200}" --sim-samples 1000 --semaphore 32 \
      --warmup-trials 20 --platform "$P" --out "$O/process-$i"
  echo "process-$i $t0 $(date +%s%N)" >> "$O/processes.txt"
done
sleep 2
touch "$O/probe.stop"; wait; rm -f "$O/probe.stop"
run $B summarize "$O"
