# What the mpi_sweep_*.cmake scripts share: run allocsim (alone or under mpirun) and compare
# output folders byte for byte. EXE, MPIRUN and WORKDIR come from the test's -D arguments.
set(MPI_FLAGS --oversubscribe --allow-run-as-root)
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})

# allocsim_run(EXPECT rc RANKS n|0 ARGS ...): runs allocsim (RANKS 0: no mpirun) and checks the
# exit status; leaves its stdout and stderr in run_out / run_err.
function(allocsim_run)
  cmake_parse_arguments(R "" "EXPECT;RANKS" "ARGS;ENV" ${ARGN})
  set(cmd ${EXE} ${R_ARGS})
  if(R_RANKS GREATER 0)
    set(cmd ${MPIRUN} ${MPI_FLAGS} -np ${R_RANKS} ${cmd})
  endif()
  if(R_ENV)
    set(cmd ${CMAKE_COMMAND} -E env ${R_ENV} ${cmd})
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 250)
  if(NOT rc STREQUAL R_EXPECT)
    string(REPLACE ";" " " shown "${cmd}")
    message(FATAL_ERROR "${shown}: exit status ${rc}, expected ${R_EXPECT}\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
  set(run_err "${err}" PARENT_SCOPE)
endfunction()

# same_files(A B f...): each file f is byte-identical in folders A and B.
function(same_files a b)
  foreach(f ${ARGN})
    if(NOT EXISTS ${a}/${f} OR NOT EXISTS ${b}/${f})
      message(FATAL_ERROR "${f} missing in ${a} or ${b}")
    endif()
    file(SHA256 ${a}/${f} ha)
    file(SHA256 ${b}/${f} hb)
    if(NOT ha STREQUAL hb)
      message(FATAL_ERROR "${f} differs between ${a} and ${b}")
    endif()
  endforeach()
endfunction()

# A sweep of 168 jobs: every policy x guard x 3 capacities x 2 seeds of conv-autotune.
set(SWEEP sweep conv-autotune --semaphore 1,2,32 --seeds 2 --no-plots --progress off)
set(SWEEP_FILES results.csv results.json memory_series.json report.md headline.md)

# recorded_jobs(DIR var): the job indices DIR's journals (DIR/jobs/*.jsonl) hold records of.
function(recorded_jobs dir var)
  file(GLOB journals ${dir}/jobs/*.jsonl)
  set(indices "")
  foreach(j ${journals})
    file(STRINGS ${j} lines REGEX "^{\"index\":[0-9]+,")
    foreach(line ${lines})
      string(REGEX REPLACE "^{\"index\":([0-9]+),.*" "\\1" i "${line}")
      list(APPEND indices ${i})
    endforeach()
  endforeach()
  set(${var} ${indices} PARENT_SCOPE)
endfunction()
