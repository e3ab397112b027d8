# scripts/slurm: the job-array scripts, run as Slurm would run them (SLURM_* set by hand, on a
# small sweep through the environment overrides of sweep-args.sh): three array tasks, then the
# merge, give the same files as the sweep run at once.
include(${CMAKE_CURRENT_LIST_DIR}/mpi_common.cmake)
set(env PROFILE=seed-repro SEMAPHORES=1,32 SAMPLES=4 ALLOCSIM=${EXE} SLURM_SUBMIT_DIR=${SOURCE_DIR})
# From the repository, as the scripts run: the platform path is recorded as given.
execute_process(COMMAND ${EXE} sweep seed-repro --policies all --guards all --semaphore 1,32 --samples 4 --platform
                        results/hw/h200-afterop/calibration.json --progress off --out ${WORKDIR}/whole
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 250)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the whole sweep: exit status ${rc}\n${out}\n${err}")
endif()
foreach(task 0 1 2)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env} OUT=${WORKDIR}/array SLURM_ARRAY_TASK_ID=${task}
                          SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=1 bash ${SOURCE_DIR}/scripts/slurm/sweep-array.sbatch
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 250)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sweep-array.sbatch task ${task}: exit status ${rc}\n${out}\n${err}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env} OUT=${WORKDIR}/array bash ${SOURCE_DIR}/scripts/slurm/sweep-merge.sbatch
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 250)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sweep-merge.sbatch: exit status ${rc}\n${out}\n${err}")
endif()
same_files(${WORKDIR}/whole ${WORKDIR}/array results.csv results.json samples.csv memory_series.json report.md)
