// The CLI's narrow view of the scenario loader. The loader header and core/policy.h each declare
// a `RegistryEntry`, so no file may include both; this wrapper keeps loader.h in one translation
// unit (scenario_access.cpp) and hands the run/list commands only core types.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "allocsim/core/params.h"
#include "allocsim/core/scenario.h"
#include "allocsim/scenarios/scenario_error.h"

namespace allocsim::cli {

/// Built-in scenarios as (name, one-line description), sorted by name.
std::vector<std::pair<std::string, std::string>> builtin_scenarios();
/// load_scenario(name_or_path, overrides); throws ScenarioError.
Scenario load_scenario_for_run(const std::string& name_or_path, const Params& overrides);

}  // namespace allocsim::cli
