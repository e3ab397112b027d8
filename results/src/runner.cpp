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

/// What a run is made of, or RunInputError.
struct PreparedRun {
  SimOptions options;
  std::unique_ptr<FreePolicy> policy;
  std::unique_ptr<Guard> guard;
};

PreparedRun prepare(const Scenario& scenario, const RunConfig& config) {
  PreparedRun p;
  p.options = resolve_sim_options(scenario, config);
  const std::string policy_name = chosen(config.policy, scenario.default_policy);
  const std::string guard_name = chosen(config.guard, scenario.default_guard);
  p.policy = make_policy(policy_name, p.options.params);
  if (!p.policy)
    throw RunInputError("unknown policy '" + policy_name + "' (valid: " + names_of(list_policies()) + ")");
  p.guard = make_guard(guard_name, p.options.params);
  if (!p.guard) throw RunInputError("unknown guard '" + guard_name + "' (valid: " + names_of(list_guards()) + ")");
  return p;
}

}  // namespace

RunResult run_one(const Scenario& scenario, const RunConfig& config, std::vector<Observer*> extra,
                  const std::function<void(SimOptions&)>& adjust) {
  PreparedRun p = prepare(scenario, config);
  p.options.observers = std::move(extra);
  if (adjust) adjust(p.options);
  return simulate(scenario, *p.policy, *p.guard, p.options);
}

void check_run_config(const Scenario& scenario, const RunConfig& config) { prepare(scenario, config); }

}  // namespace allocsim
