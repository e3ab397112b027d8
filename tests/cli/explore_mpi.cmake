# `allocsim explore` under mpirun (issue 19): on -np 2 and -np 4 its stdout, --json and --witness
# are the same bytes as the single-process run's, and only rank 0 writes (a worker rank that
# printed would add to stdout; one that wrote would leave its own files).
# Run with cmake -P; MPIRUN is mpirun, EXE the allocsim binary, WORKDIR a scratch directory, ARGS
# the explore arguments, |-separated.
string(REPLACE "|" ";" ARGS "${ARGS}")
# --oversubscribe: more ranks than cores (CI has two); --allow-run-as-root: CI containers run as root.
set(mpi ${MPIRUN} --oversubscribe --allow-run-as-root)
foreach(np 1 2 4)
  set(dir ${WORKDIR}/explore-mpi-np${np})
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  if(np EQUAL 1)
    set(launch ${EXE})  # no launcher: the farm of one process's threads
  else()
    set(launch ${mpi} -np ${np} ${EXE})
  endif()
  execute_process(COMMAND ${launch} explore ${ARGS} --json explore.json --witness witness.json --progress off
                  WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 140)
  if(NOT rc MATCHES "^[01]$")  # 0: race-free to the bound, 1: a witness; anything else failed
    message(FATAL_ERROR "${launch} explore ${ARGS}: exit status ${rc}\n--- stdout:\n${out}\n--- stderr:\n${err}")
  endif()
  file(GLOB written RELATIVE ${dir} ${dir}/*)
  set(out_${np} "${out}")
  set(rc_${np} ${rc})
  set(written_${np} "${written}")
endforeach()
file(READ ${WORKDIR}/explore-mpi-np1/explore.json json_1)
foreach(np 2 4)
  if(NOT rc_${np} EQUAL rc_1)
    message(FATAL_ERROR "-np ${np}: exit status ${rc_${np}}, one process: ${rc_1}")
  endif()
  if(NOT out_${np} STREQUAL out_1)
    message(FATAL_ERROR "-np ${np}: stdout differs from one process's\n--- one process:\n${out_1}\n--- -np ${np}:\n${out_${np}}")
  endif()
  if(NOT written_${np} STREQUAL written_1)
    message(FATAL_ERROR "-np ${np} wrote ${written_${np}}, one process ${written_1}")
  endif()
  foreach(f ${written_1})
    file(READ ${WORKDIR}/explore-mpi-np1/${f} a)
    file(READ ${WORKDIR}/explore-mpi-np${np}/${f} b)
    if(NOT a STREQUAL b)
      message(FATAL_ERROR "-np ${np}: ${f} differs from one process's")
    endif()
  endforeach()
endforeach()
if(json_1 STREQUAL "")
  message(FATAL_ERROR "explore.json is empty")
endif()
