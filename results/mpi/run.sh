#!/usr/bin/env bash
# Issue 19's measurements, on the project's 2-core machine (run from the repository root after
# `bash scripts/build.sh release`): the sweep's speed-up on 2 MPI ranks, the job farm's cost per
# job (bench/bench_mpi.cpp), and the time of one sample of a real XLA profile (cnn), the kind of
# job a cluster runs. Writes results/mpi/bench_mpi.json and cnn_samples.txt; summarize.py turns
# them into README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/mpi
mpirun --oversubscribe --allow-run-as-root -np 2 build/bench/bench_mpi \
  --benchmark_out="$out/bench_mpi.json" --benchmark_out_format=json
# One thread, 7 policies x 20 samples of the cnn profile at semaphore 1.
tmp=$(mktemp -d)
start=$EPOCHREALTIME
build/apps/allocsim sweep tests/data/jax_profiles/cnn.xplane.pb.gz --policies all --guards none --semaphore 1 \
  --samples 20 --platform results/hw/h200-samples/calibration.json --jobs 1 --no-report --progress off --out "$tmp" >/dev/null
end=$EPOCHREALTIME
rm -rf "$tmp"
printf 'samples 140\nstart %s\nend %s\n' "$start" "$end" > "$out/cnn_samples.txt"
python3 "$out/summarize.py"
