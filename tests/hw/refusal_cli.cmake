# allocsim-hw refuses bad input before it opens a GPU (run with cmake -P, or included by
# schedule_cli.cmake): exit status 2, the message on stderr, and nothing written at NOFILE.
#   EXE ARGS (|-separated, or a list) STDERR NOFILE
string(REPLACE "|" ";" ARGS "${ARGS}")
file(REMOVE_RECURSE ${NOFILE})
execute_process(COMMAND ${EXE} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT "${rc}" STREQUAL "2")
  message(FATAL_ERROR "exit status ${rc}, expected 2\n--- stderr:\n${err}")
endif()
string(FIND "${err}" "${STDERR}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "stderr lacks '${STDERR}'\n--- stderr:\n${err}")
endif()
if(EXISTS ${NOFILE})
  message(FATAL_ERROR "a refused call wrote ${NOFILE}")
endif()
