// See resolve.h: `--set` parsing, scenario loading for a run's seed, and the run's options.
#include "allocsim/results/resolve.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "allocsim/core/seeds.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/scenarios/loader.h"

namespace allocsim {

std::vector<SetItem> parse_set_items(const std::vector<std::string>& items) {
  std::vector<SetItem> out;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw RunInputError("--set expects key=value, got '" + item + "'");
    SetItem s{item.substr(0, eq), item.substr(eq + 1), 0};
    errno = 0;
    char* end = nullptr;
    s.value = std::strtod(s.text.c_str(), &end);
    if (s.text.empty() || end != s.text.c_str() + s.text.size() || errno == ERANGE || !std::isfinite(s.value))
      throw RunInputError("--set " + s.key + ": '" + s.text + "' is not a number");
    out.push_back(std::move(s));
  }
  return out;
}

Params set_params(const std::vector<SetItem>& items) {
  Params p;
  for (const SetItem& s : items) p.set(s.key, s.value);
  return p;
}

Scenario load_for_run(const RunConfig& config) {
  Params overrides = config.sets;
  if (config.seed) {
    if (*config.seed > seeds::kMax)
      throw RunInputError("seed " + std::to_string(*config.seed) + " is larger than 2^53");
    overrides.set("seed", double(*config.seed));
  }
  return load_scenario(config.scenario, overrides);
}

SimOptions resolve_sim_options(const Scenario& scenario, const RunConfig& config) {
  SimOptions o;
  o.semaphore = config.semaphore.value_or(scenario.semaphore);
  if (o.semaphore < 1)
    throw RunInputError("semaphore must be at least 1 (got " + std::to_string(o.semaphore) + ")");
  o.seed = config.seed.value_or(scenario.seed);
  o.params = scenario.params;
  for (const auto& [k, v] : config.sets.all()) o.params.set(k, v);
  if (o.params.has("seed")) o.params.set("seed", double(o.seed));  // --set seed= lost to a flag's seed
  try {
    if (config.platform) {
      o.platform = *config.platform;
      apply_platform_overrides(o.platform, config.sets);
    } else if (config.platform_file) {
      o.platform = load_platform_file(*config.platform_file);
      apply_platform_overrides(o.platform, config.sets);  // --set beats the file, as it beats the scenario
    } else {
      o.platform = scenario.platform;  // the loader applied --set already
    }
  } catch (const PlatformError& e) {
    throw RunInputError(e.what());
  }
  o.detect_races = config.detect_races;
  o.max_findings = config.max_findings;
  o.findings_to_stderr = config.findings_to_stderr;
  o.max_events = config.max_events;
  return o;
}

std::shared_ptr<const Scenario> ScenarioPerSeed::get(std::uint64_t seed) {
  {
    std::lock_guard lock(mu_);
    if (auto it = loaded_.find(seed); it != loaded_.end()) return it->second;
  }
  // Loaded outside the lock so jobs of other seeds are not held up; two threads loading the same
  // seed get the same program (loading is deterministic) and the first one stored is kept.
  RunConfig c = base_;
  c.seed = seed;
  auto s = std::make_shared<const Scenario>(load_for_run(c));
  std::lock_guard lock(mu_);
  return loaded_.emplace(seed, std::move(s)).first->second;
}

}  // namespace allocsim
