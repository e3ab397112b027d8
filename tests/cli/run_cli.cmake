# Golden-output check for one `allocsim` command line (run with cmake -P).
#   EXE       the allocsim binary
#   ARGS      its arguments, separated by | (or ;)
#   RC        the expected exit status
#   GOLDEN    (optional) file whose content stdout must equal exactly
#   STDERR    (optional) text stderr must contain
#   STDOUT    (optional) text stdout must contain
#   WORKDIR   (optional) directory to run in (output files land there)
# Set the environment variable ALLOCSIM_UPDATE_GOLDEN=1 to (re)write GOLDEN from the actual output;
# then READ the new golden before committing it.
string(REPLACE "|" ";" ARGS "${ARGS}")
if(NOT WORKDIR)
  set(WORKDIR ${CMAKE_CURRENT_BINARY_DIR})
endif()
execute_process(COMMAND ${EXE} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT "${rc}" STREQUAL "${RC}")
  message(FATAL_ERROR "allocsim ${ARGS}: exit status ${rc}, expected ${RC}\n--- stdout:\n${out}\n--- stderr:\n${err}")
endif()
if(STDERR)
  string(FIND "${err}" "${STDERR}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "allocsim ${ARGS}: stderr lacks '${STDERR}'\n--- stderr:\n${err}")
  endif()
endif()
if(STDOUT)
  string(FIND "${out}" "${STDOUT}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "allocsim ${ARGS}: stdout lacks '${STDOUT}'\n--- stdout:\n${out}")
  endif()
endif()
if(GOLDEN)
  if("$ENV{ALLOCSIM_UPDATE_GOLDEN}" STREQUAL "1")
    file(WRITE ${GOLDEN} "${out}")
    message(STATUS "updated ${GOLDEN}")
  else()
    if(NOT EXISTS ${GOLDEN})
      message(FATAL_ERROR "golden file ${GOLDEN} is missing (ALLOCSIM_UPDATE_GOLDEN=1 writes it)")
    endif()
    file(READ ${GOLDEN} expected)
    if(NOT "${out}" STREQUAL "${expected}")
      file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/actual.txt "${out}")
      execute_process(COMMAND diff -u ${GOLDEN} ${CMAKE_CURRENT_BINARY_DIR}/actual.txt OUTPUT_VARIABLE d)
      message(FATAL_ERROR "allocsim ${ARGS}: stdout differs from ${GOLDEN}\n${d}")
    endif()
  endif()
endif()
