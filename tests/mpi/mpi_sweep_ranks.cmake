# The same sweep on threads (2) and under mpirun with 1, 2 and 4 ranks writes the same bytes; so do
# a sampled sweep and `run --samples` on 2 ranks against their threaded runs.
include(${CMAKE_CURRENT_LIST_DIR}/mpi_common.cmake)
allocsim_run(EXPECT 0 RANKS 0 ARGS ${SWEEP} --jobs 2 --out ${WORKDIR}/threads)
foreach(n 1 2 4)
  allocsim_run(EXPECT 0 RANKS ${n} ARGS ${SWEEP} --out ${WORKDIR}/ranks${n})
  same_files(${WORKDIR}/threads ${WORKDIR}/ranks${n} ${SWEEP_FILES})
endforeach()
# Every rank ran jobs (the split varies from run to run; the files do not).
if(NOT run_err MATCHES "on 4 MPI ranks, jobs run per rank: [1-9][0-9]*, [1-9][0-9]*, [1-9][0-9]*, [1-9][0-9]*\n")
  message(FATAL_ERROR "the 4-rank sweep did not run jobs on every rank:\n${run_err}")
endif()

set(SAMPLED sweep seed-repro --policies immediate,deferred-callback --guards none --semaphore 1,32 --samples 20
    --platform ${PLATFORM} --no-plots --progress off)
allocsim_run(EXPECT 0 RANKS 0 ARGS ${SAMPLED} --jobs 2 --out ${WORKDIR}/sampled-threads)
allocsim_run(EXPECT 0 RANKS 2 ARGS ${SAMPLED} --out ${WORKDIR}/sampled-ranks2)
same_files(${WORKDIR}/sampled-threads ${WORKDIR}/sampled-ranks2 results.csv results.json samples.csv report.md)

# same_run_on_ranks(NAME name ARGS ...): `allocsim ARGS --json` on threads and on 2 ranks prints and
# writes the same bytes; the threaded run's output is left in threads_out.
function(same_run_on_ranks)
  cmake_parse_arguments(S "" "NAME" "ARGS" ${ARGN})
  allocsim_run(EXPECT 0 RANKS 0 ARGS ${S_ARGS} --jobs 2 --json ${WORKDIR}/${S_NAME}-threads.json)
  set(threads "${run_out}")
  allocsim_run(EXPECT 0 RANKS 2 ARGS ${S_ARGS} --json ${WORKDIR}/${S_NAME}-ranks2.json)
  string(REPLACE "${S_NAME}-ranks2.json" "${S_NAME}-threads.json" ranks_out "${run_out}")
  if(NOT ranks_out STREQUAL threads)
    message(FATAL_ERROR "${S_NAME}: prints differently on 2 ranks:\n${threads}\n---\n${run_out}")
  endif()
  file(SHA256 ${WORKDIR}/${S_NAME}-threads.json a)
  file(SHA256 ${WORKDIR}/${S_NAME}-ranks2.json b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${S_NAME}: --json differs on 2 ranks")
  endif()
  set(threads_out "${threads}" PARENT_SCOPE)
endfunction()

same_run_on_ranks(NAME samples ARGS run seed-repro --semaphore 32 --samples 60 --platform ${PLATFORM} --progress off)
# run --samples --host-pace: the base samples and every factor are one farm run, so a worker rank
# serves them all.
same_run_on_ranks(NAME paced ARGS run seed-repro --semaphore 32 --samples 40 --host-pace 0.8,1.25 --platform ${PLATFORM}
                  --progress off)
if(NOT threads_out MATCHES "host pace every host cost")
  message(FATAL_ERROR "run --samples --host-pace printed no scan:\n${threads_out}")
endif()
