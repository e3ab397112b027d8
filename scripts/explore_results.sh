#!/usr/bin/env bash
# The explorations behind results/explore/ (docs/explore.md): proofs up to k = 3 for the policies
# and guards whose timed runs are race-free, the seed-repro witness forced on the H200, the case
# scenarios, and pruning against plain enumeration. Usage: scripts/explore_results.sh [BUILD_DIR]
# (default build). Writes results/explore/*.txt (the report) and *.json (or to $EXPLORE_OUT);
# commands.txt lists each command line. Exit status: 0 when every exploration gave its expected
# answer. The committed results ran on the device machine's 16 cores (results/explore/README.md).
set -u
B=${1:-build}/apps/allocsim
O=${EXPLORE_OUT:-results/explore}
mkdir -p "$O"
: > "$O/commands.txt"
status=0
# expect NAME RC ARGS...: runs `allocsim explore ARGS`, keeps its report, checks its exit status
# (0: race-free and deadlock-free up to the bound; 1: a witness).
expect() {
  local name=$1 want=$2; shift 2
  echo "allocsim explore $* --json results/explore/$name.json --progress off > results/explore/$name.txt" \
    | sed "s#$O/#results/explore/#g" >> "$O/commands.txt"
  "$B" explore "$@" --json "$O/$name.json" --progress off > "$O/$name.txt"
  local rc=$?
  if [ "$rc" != "$want" ]; then echo "$name: exit $rc, expected $want" >&2; status=1; fi
  echo "$name: $(grep '^verdict' "$O/$name.txt")"
}
for sc in seed-repro conv-autotune; do
  for pg in deferred-callback:none stream-aware:none immediate:wait-compute immediate:device-sync immediate:private-pool; do
    expect "proof-$sc-${pg%%:*}-${pg##*:}" 0 "$sc" --policy "${pg%%:*}" --guard "${pg##*:}" --bound 3 \
      --max-schedules 50000000
  done
done
# The witness forced on the H200 (results/hw/h200-explore): execution 2, which the timed run and
# the H200 (results/hw/h200-final) leave clean at semaphore 32.
expect find-seed-repro-immediate-none 1 seed-repro --policy immediate --guard none --bound 2 --execution 2 \
  --forceable --witness "$O/witness-seed-repro-execution-2.json"
for c in mutex-callback-6318 scratch-teardown-43489; do
  expect "case-$c-fixed0" 1 "scenarios/cases/$c.yaml" --set fixed=0 --bound 2 --witness "$O/witness-$c.json"
  expect "case-$c-fixed1" 0 "scenarios/cases/$c.yaml" --set fixed=1 --bound 3
done
expect case-last-use-stream-deferred-callback 1 scenarios/cases/last-use-stream.yaml --policy deferred-callback --bound 2
expect case-last-use-stream-stream-aware 0 scenarios/cases/last-use-stream.yaml --policy stream-aware --bound 3
# Pruning against plain enumeration at k = 2 on conv-autotune (the issue's measure).
expect "pruning-conv-autotune-deferred-callback-none-k2" 0 conv-autotune --policy deferred-callback --guard none --bound 2
expect "pruning-conv-autotune-stream-aware-none-k2" 0 conv-autotune --policy stream-aware --guard none --bound 2
python3 results/explore/summarize.py "$O"
exit $status
