# `allocsim explore` under mpirun: on 2 and 4 ranks it prints the same bytes and writes the same
# --json and --witness as one process (worker ranks print nothing: their output would join
# mpirun's), and a schedule that fails on any rank is named by its delays, exit status 2.
include(${CMAKE_CURRENT_LIST_DIR}/mpi_common.cmake)

# explore_same(NAME name EXPECT rc ARGS ...): one process (threads), then 2 and 4 ranks.
function(explore_same)
  cmake_parse_arguments(E "" "NAME;EXPECT" "ARGS" ${ARGN})
  set(files explore.json)
  if(E_EXPECT EQUAL 1)  # a witness was found
    list(APPEND files witness.json)
  endif()
  foreach(n 0 2 4)
    set(dir ${WORKDIR}/${E_NAME}-ranks${n})
    file(MAKE_DIRECTORY ${dir})
    allocsim_run(EXPECT ${E_EXPECT} RANKS ${n}
                 ARGS explore ${E_ARGS} --json ${dir}/explore.json --witness ${dir}/witness.json --progress off)
    string(REPLACE "${dir}/" "" out_${n} "${run_out}")  # the files' paths are in the output
  endforeach()
  foreach(n 2 4)
    if(NOT out_${n} STREQUAL out_0)
      message(FATAL_ERROR "${E_NAME}: explore prints differently on ${n} ranks:\n${out_0}\n---\n${out_${n}}")
    endif()
    same_files(${WORKDIR}/${E_NAME}-ranks0 ${WORKDIR}/${E_NAME}-ranks${n} ${files})
  endforeach()
endfunction()

# 1,709 schedules, race-free to the bound (the full conv-autotune, 30,144, is too slow for the
# sanitizer build), and a witness one delay away in execution 1.
explore_same(NAME conv EXPECT 0
             ARGS conv-autotune --policy deferred-callback --guard none --bound 2 --set epochs=1)
explore_same(NAME witness EXPECT 1
             ARGS seed-repro --policy immediate --guard none --bound 2 --set trials=2 --execution 1 --forceable)

allocsim_run(EXPECT 2 RANKS 2 ENV ALLOCSIM_FAULT_JOB=throw:1
             ARGS explore seed-repro --policy deferred-callback --guard none --bound 1 --set trials=1 --progress off)
set(named "schedules with 1 delay\\(s\\) failed:\njob 1 \\(hold [^\n]+ until [^\n]+\\)( on rank [0-9]+)?: injected failure")
if(NOT run_err MATCHES "${named}")
  message(FATAL_ERROR "the failed schedule is not named:\n${run_err}")
endif()
