// The run a schedule file names (docs/explore.md), for `allocsim run --schedule` and
// `allocsim-hw validate --schedule`: one reader, so both replay the same run.
#pragma once
#include <string>

#include "allocsim/core/schedule.h"
#include "allocsim/results/run_config.h"

namespace allocsim {

/// Reads and parses `file` and makes `run` the schedule's run: scenario, policy, guard, semaphore,
/// seed and `--set` values. A value already in `run` may repeat the schedule's but not change it
/// (the delays were found for that run and mean nothing in another): RunInputError says which.
/// Bad files: RunInputError with the parser's message. The flags are named as the caller's
/// command names them.
Schedule apply_schedule(const std::string& file, RunConfig& run, const char* policy_flag = "--policy",
                        const char* guard_flag = "--guard");

}  // namespace allocsim
