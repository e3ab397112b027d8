// The run resolver: the one place that turns what a user asked for (the flags of `allocsim run`,
// `allocsim sweep` and `allocsim-hw validate`) into what a run uses. It exists because each command
// used to parse `--set`, load the scenario and pick the semaphore, seed and platform on its own,
// and they drifted apart: `--seed` / `--seeds` never reached the draws made while loading, and
// `allocsim-hw` let a --platform file beat `--set` and reported a bad number as "stod". Both
// executables link allocsim_results, so both use this.
//
// Precedence, highest first: flags (--semaphore, --seed, a sweep job's seed), `--set`, a
// --platform file (platform fields only), the scenario's own values. Seeds: core/seeds.h.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "allocsim/core/params.h"
#include "allocsim/core/scenario.h"
#include "allocsim/engine/simulate.h"
#include "allocsim/results/run_config.h"
#include "allocsim/scenarios/scenario_error.h"

namespace allocsim {

/// One `--set key=value` item: the value as a number, and as typed (a sweep records the text).
struct SetItem {
  std::string key, text;
  double value = 0;
};

/// Parses `--set` items; each value must be a finite number. Throws RunInputError naming the item.
/// Which keys a scenario accepts is the loader's to check (it knows the scenario's params).
std::vector<SetItem> parse_set_items(const std::vector<std::string>& items);
/// The items as Params (a repeated key: the last one wins).
Params set_params(const std::vector<SetItem>& items);

/// Loads the scenario `config` names for the run's seed: the loader gets config.sets and, when
/// config.seed is given, that seed as `seed`, so draws made while loading use the run's seed.
/// Throws ScenarioError (bad scenario or --set) and RunInputError (a seed above 2^53).
Scenario load_for_run(const RunConfig& config);

/// The SimOptions a config resolves to against a scenario loaded for it (defaults filled in,
/// platform loaded, `--set` over the platform file). Throws RunInputError.
SimOptions resolve_sim_options(const Scenario& scenario, const RunConfig& config);

/// The scenario of each seed of a sweep, loaded on first use and shared by every job with that
/// seed (a program may differ per seed when it draws sizes while loading). Thread-safe.
class ScenarioPerSeed {
 public:
  /// `base` names the scenario and its `--set` values; its seed is ignored.
  explicit ScenarioPerSeed(RunConfig base) : base_(std::move(base)) {}
  std::shared_ptr<const Scenario> get(std::uint64_t seed);

 private:
  RunConfig base_;
  std::mutex mu_;
  std::map<std::uint64_t, std::shared_ptr<const Scenario>> loaded_;
};

}  // namespace allocsim
