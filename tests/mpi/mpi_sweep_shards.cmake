# Three shards (--shard i/3) into one folder, then --merge, write the same files as the whole
# sweep, and two shards of one sampled point too; a merge with a shard missing is refused (exit 2) and names what is missing; so are
# --force with --shard and a malformed --shard.
include(${CMAKE_CURRENT_LIST_DIR}/mpi_common.cmake)
allocsim_run(EXPECT 0 RANKS 0 ARGS ${SWEEP} --out ${WORKDIR}/whole)
allocsim_run(EXPECT 0 RANKS 0 ARGS ${SWEEP} --out ${WORKDIR}/sharded --shard 0/3)
allocsim_run(EXPECT 0 RANKS 0 ARGS ${SWEEP} --out ${WORKDIR}/sharded --shard 2/3)
if(EXISTS ${WORKDIR}/sharded/results.csv)
  message(FATAL_ERROR "a shard wrote results.csv")
endif()
allocsim_run(EXPECT 2 RANKS 0 ARGS ${SWEEP} --out ${WORKDIR}/sharded --merge)
if(NOT run_err MATCHES "56 job\\(s\\) have no record yet \\(1, 4, 7,")
  message(FATAL_ERROR "the merge with shard 1/3 missing did not name its jobs:\n${run_err}")
endif()
# The last shard on 2 MPI ranks: shards and ranks combine.
allocsim_run(EXPECT 0 RANKS 2 ARGS ${SWEEP} --out ${WORKDIR}/sharded --shard 1/3)
allocsim_run(EXPECT 0 RANKS 0 ARGS ${SWEEP} --out ${WORKDIR}/sharded --merge)
same_files(${WORKDIR}/whole ${WORKDIR}/sharded ${SWEEP_FILES})

allocsim_run(EXPECT 2 RANKS 0 ARGS ${SWEEP} --out ${WORKDIR}/sharded --shard 1/3 --force)
allocsim_run(EXPECT 2 RANKS 0 ARGS ${SWEEP} --out ${WORKDIR}/sharded --shard 3/3)
if(NOT run_err MATCHES "0 <= INDEX < COUNT")
  message(FATAL_ERROR "--shard 3/3 was not explained:\n${run_err}")
endif()

# With --samples the shards split samples, so even one point spreads over the shards.
set(POINT sweep seed-repro --policies immediate --guards none --semaphore 32 --samples 9 --platform ${PLATFORM}
    --no-plots --progress off)
allocsim_run(EXPECT 0 RANKS 0 ARGS ${POINT} --out ${WORKDIR}/point-whole)
allocsim_run(EXPECT 0 RANKS 0 ARGS ${POINT} --out ${WORKDIR}/point-sharded --shard 0/2)
if(NOT run_out MATCHES "shard     0/2: 5 samples recorded")
  message(FATAL_ERROR "shard 0/2 of one point of 9 samples did not run 5 of them:\n${run_out}")
endif()
allocsim_run(EXPECT 0 RANKS 0 ARGS ${POINT} --out ${WORKDIR}/point-sharded --shard 1/2)
allocsim_run(EXPECT 0 RANKS 0 ARGS ${POINT} --out ${WORKDIR}/point-sharded --merge)
same_files(${WORKDIR}/point-whole ${WORKDIR}/point-sharded results.csv results.json samples.csv memory_series.json report.md)
