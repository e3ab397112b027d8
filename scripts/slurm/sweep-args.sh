# The sweep the job-array scripts share: shards and the merge must give the same arguments (the
# merge refuses an OUT that holds another sweep). Edit here, or override through the environment
# (tests/mpi runs the scripts this way on a small sweep, without Slurm).
OUT=${OUT:-$PWD/out/xla-sweep}
PROFILE=${PROFILE:-tests/data/jax_profiles/cnn.xplane.pb.gz}
SEMAPHORES=${SEMAPHORES:-1,2,4,8,16,32}
SAMPLES=${SAMPLES:-1000}
ALLOCSIM=${ALLOCSIM:-build/apps/allocsim}
SWEEP_ARGS=("$PROFILE" --policies all --guards all --semaphore "$SEMAPHORES"
            --samples "$SAMPLES" --platform results/hw/h200-afterop/calibration.json --out "$OUT")
