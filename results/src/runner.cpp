// run_one: resolve the options (resolve.h), build policy + guard by name, call simulate().
#include "allocsim/results/runner.h"

#include <memory>

#include "allocsim/core/policy.h"

namespace allocsim {

namespace {

std::string names_of(const std::vector<RegistryEntry>& entries) {
  std::string s;
  for (const auto& e : entries) s += (s.empty() ? "" : ", ") + e.name;
  return s;
}

std::string chosen(const std::string& requested, const std::string& fallback) {
  return requested.empty() ? fallback : requested;
}

}  // namespace

RunResult run_one(const Scenario& scenario, const RunConfig& config, std::vector<Observer*> extra,
                  const std::function<void(SimOptions&)>& adjust) {
  SimOptions options = resolve_sim_options(scenario, config);
  const std::string policy_name = chosen(config.policy, scenario.default_policy);
  const std::string guard_name = chosen(config.guard, scenario.default_guard);
  std::unique_ptr<FreePolicy> policy = make_policy(policy_name, options.params);
  if (!policy)
    throw RunInputError("unknown policy '" + policy_name + "' (valid: " + names_of(list_policies()) + ")");
  std::unique_ptr<Guard> guard = make_guard(guard_name, options.params);
  if (!guard) throw RunInputError("unknown guard '" + guard_name + "' (valid: " + names_of(list_guards()) + ")");
  options.observers = std::move(extra);
  if (adjust) adjust(options);

  return simulate(scenario, *policy, *guard, options);
}

}  // namespace allocsim
