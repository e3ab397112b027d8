// run_one: resolve defaults from the scenario, build policy + guard by name, call simulate().
#include "allocsim/results/runner.h"

#include <memory>

#include "allocsim/core/policy.h"
#include "allocsim/results/platform_io.h"

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

SimOptions resolve_sim_options(const Scenario& scenario, const RunConfig& config) {
  SimOptions o;
  o.semaphore = config.semaphore.value_or(scenario.semaphore);
  if (o.semaphore < 1)
    throw RunInputError("semaphore must be at least 1 (got " + std::to_string(o.semaphore) + ")");
  o.seed = config.seed.value_or(scenario.seed);
  o.params = scenario.params;
  for (const auto& [k, v] : config.sets.all()) o.params.set(k, v);
  if (config.platform) {
    o.platform = *config.platform;
    apply_platform_overrides(o.platform, config.sets);
  } else if (config.platform_file) {
    try {
      o.platform = load_platform_file(*config.platform_file);
      apply_platform_overrides(o.platform, config.sets);  // --set beats the file, as it beats the scenario
    } catch (const PlatformError& e) {
      throw RunInputError(e.what());
    }
  } else {
    o.platform = scenario.platform;
  }
  o.detect_races = config.detect_races;
  o.max_findings = config.max_findings;
  o.findings_to_stderr = config.findings_to_stderr;
  o.max_events = config.max_events;
  return o;
}

RunResult run_one(const Scenario& scenario, const RunConfig& config, std::vector<Observer*> extra) {
  SimOptions options = resolve_sim_options(scenario, config);
  const std::string policy_name = chosen(config.policy, scenario.default_policy);
  const std::string guard_name = chosen(config.guard, scenario.default_guard);
  std::unique_ptr<FreePolicy> policy = make_policy(policy_name, options.params);
  if (!policy)
    throw RunInputError("unknown policy '" + policy_name + "' (valid: " + names_of(list_policies()) + ")");
  std::unique_ptr<Guard> guard = make_guard(guard_name, options.params);
  if (!guard) throw RunInputError("unknown guard '" + guard_name + "' (valid: " + names_of(list_guards()) + ")");
  options.observers = std::move(extra);

  return simulate(scenario, *policy, *guard, options);
}

}  // namespace allocsim
