# allocsim-hw validate --schedule refuses a bad schedule before it touches a GPU (run with cmake -P):
# exit status 2, the message on stderr, no output folder. The schedule is the committed example
# with FROM replaced by TO (FROM must occur: a test that edits nothing could not fail).
#   EXE EXAMPLE FROM TO STDERR WORKDIR, EXTRA (optional, |-separated further arguments)
file(READ ${EXAMPLE} text)
string(FIND "${text}" "${FROM}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "'${FROM}' does not occur in ${EXAMPLE}")
endif()
string(REPLACE "${FROM}" "${TO}" text "${text}")
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
file(WRITE ${WORKDIR}/schedule.json "${text}")
string(REPLACE "|" ";" EXTRA "${EXTRA}")
set(ARGS validate --schedule ${WORKDIR}/schedule.json --trials 2 --out ${WORKDIR}/out ${EXTRA})
set(NOFILE ${WORKDIR}/out)
include(${CMAKE_CURRENT_LIST_DIR}/refusal_cli.cmake)
