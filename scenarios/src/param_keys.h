// The `--set` keys every scenario understands besides its own params (see loader.h), and how a
// well-known key changes a Scenario. Shared by the YAML loader and the PyTorch trace importer.
#pragma once
#include <string>

#include "allocsim/core/params.h"
#include "allocsim/core/scenario.h"

namespace allocsim::scenario_detail {

bool is_well_known_key(const std::string& key);
bool is_policy_key(const std::string& key);

/// Applies one well-known key; throws ScenarioError (file "--set", 0:0) on an out-of-range value.
void apply_well_known(Scenario& scenario, const std::string& key, double value);

/// Copies every override that is a well-known or policy key into the scenario (well-known keys
/// change its fields); returns false for a key that is neither, which the caller reports.
void apply_common_overrides(Scenario& scenario, const Params& overrides);

/// The error for a `--set` key nobody knows, listing what is accepted.
[[noreturn]] void throw_unknown_set_key(const std::string& key, const std::string& scenario_keys);

}  // namespace allocsim::scenario_detail
