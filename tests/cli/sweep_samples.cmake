# `allocsim sweep --samples` end to end: with --jobs 1 and --jobs 2 every file it writes is the
# same bytes, and report.md gives the corruption rates with their 95% intervals.
# Run with cmake -P; EXE is the allocsim binary, WORKDIR a scratch directory, PLATFORM a platform
# file with a spread.
set(args sweep seed-repro --policies immediate,deferred-callback --guards none --semaphore 1,32 --samples 30
    --platform ${PLATFORM} --no-plots --progress off --force)
foreach(j 1 2)
  execute_process(COMMAND ${EXE} ${args} --jobs ${j} --out ${WORKDIR}/sweep-samples-j${j} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "allocsim ${args} --jobs ${j}: exit status ${rc}\n${out}\n${err}")
  endif()
endforeach()
foreach(f results.csv results.json samples.csv report.md headline.md memory_series.json)
  file(READ ${WORKDIR}/sweep-samples-j1/${f} a)
  file(READ ${WORKDIR}/sweep-samples-j2/${f} b)
  if(a STREQUAL "")
    message(FATAL_ERROR "${f} is empty")
  endif()
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${f} differs between --jobs 1 and --jobs 2")
  endif()
endforeach()
file(READ ${WORKDIR}/sweep-samples-j1/report.md report)
if(NOT report MATCHES "Manifest corruption at semaphore 32 \\(share of samples with one in any execution, 95% Clopper-Pearson interval\\): `immediate` \\+ `none` [0-9]+\\.[0-9]% \\[[0-9]+\\.[0-9], [0-9]+\\.[0-9]\\]")
  message(FATAL_ERROR "report.md lacks the corruption rate with its interval:\n${report}")
endif()
