// The flags that pick one run (`allocsim run`, `allocsim explore`): scenario, policy, guard,
// semaphore, seed, --set and --platform, declared once and turned into a RunConfig once, so the
// two commands cannot drift apart in what they accept or how they resolve it.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "allocsim/results/resolve.h"
#include "allocsim/results/run_config.h"

namespace allocsim::cli {

struct RunFlags {
  std::string scenario, policy, guard, platform_path;
  int semaphore = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> sets;

  /// Declares the flags on `sub`; `scenario_help` says which scenario forms the command takes.
  void add_to(CLI::App& sub, const std::string& scenario_help) {
    sub.add_option("SCENARIO", scenario, scenario_help)->required();
    sub.add_option("--policy", policy, "free policy (default: the scenario's)");
    sub.add_option("--guard", guard, "guard for non-compute streams (default: the scenario's)");
    sub.add_option("--semaphore", semaphore, "compute-semaphore capacity (default: the scenario's)")
        ->check(CLI::Range(1, 1 << 20));
    sub.add_option("--seed", seed,
                   "random seed, 0 to 2^53; also draws the sizes a scenario draws while loading "
                   "(default: the scenario's)");
    sub.add_option("--set", sets, "override a numeric parameter, key=value (repeatable)");
    sub.add_option("--platform", platform_path, "platform profile JSON (from allocsim-hw calibrate)");
  }

  /// The run the flags given on `sub` ask for. Throws RunInputError for a bad --set item.
  RunConfig config(const CLI::App& sub) const {
    RunConfig c;
    c.scenario = scenario;
    c.policy = policy;
    c.guard = guard;
    if (sub.count("--semaphore")) c.semaphore = semaphore;
    if (sub.count("--seed")) c.seed = seed;
    c.sets = set_params(parse_set_items(sets));
    if (!platform_path.empty()) c.platform_file = platform_path;
    return c;
  }

  /// The --set values as typed (a schedule file records them so).
  std::map<std::string, std::string> typed_sets() const {
    std::map<std::string, std::string> out;
    for (const SetItem& s : parse_set_items(sets)) out[s.key] = s.text;
    return out;
  }
};

}  // namespace allocsim::cli
