// See schedule_run.h.
#include "allocsim/results/schedule_run.h"

#include "allocsim/results/atomic_file.h"
#include "allocsim/results/resolve.h"

namespace allocsim {

Schedule apply_schedule(const std::string& file, RunConfig& run, const char* policy_flag, const char* guard_flag) {
  Schedule s;
  try {
    s = parse_schedule(read_whole_file(file), file);
  } catch (const ScheduleError& e) {
    throw RunInputError(e.what());
  } catch (const FileWriteError& e) {
    throw RunInputError(std::string("cannot read schedule file: ") + e.what());
  }
  auto disagree = [&](const std::string& flag, const std::string& given, const std::string& wanted) {
    throw RunInputError(flag + " " + given + " disagrees with the schedule " + file + " (" + wanted +
                        "): leave it out, the schedule names its run");
  };
  if (!run.scenario.empty() && run.scenario != s.scenario) disagree("SCENARIO", run.scenario, s.scenario);
  if (!run.policy.empty() && run.policy != s.policy) disagree(policy_flag, run.policy, s.policy);
  if (!run.guard.empty() && run.guard != s.guard) disagree(guard_flag, run.guard, s.guard);
  if (run.semaphore && *run.semaphore != s.semaphore)
    disagree("--semaphore", std::to_string(*run.semaphore), std::to_string(s.semaphore));
  if (run.seed && *run.seed != s.seed) disagree("--seed", std::to_string(*run.seed), std::to_string(s.seed));
  std::vector<std::string> items;
  for (const auto& [key, value] : s.set) items.push_back(key + "=" + value);
  const Params from_file = set_params(parse_set_items(items));
  for (const auto& [key, value] : from_file.all()) {
    if (run.sets.has(key) && run.sets.get(key, value) != value)
      disagree("--set " + key, std::to_string(run.sets.get(key, value)), std::to_string(value));
    run.sets.set(key, value);
  }
  run.scenario = s.scenario;
  run.policy = s.policy;
  run.guard = s.guard;
  run.semaphore = s.semaphore;
  run.seed = s.seed;
  return s;
}

}  // namespace allocsim
