// The `--set` keys every scenario understands besides its own params (see loader.h), and how a
// well-known key changes a Scenario. Shared by the YAML loader and the PyTorch trace importer.
#pragma once
#include <string>
#include <vector>

#include "allocsim/core/params.h"
#include "allocsim/core/scenario.h"

namespace allocsim::scenario_detail {

bool is_well_known_key(const std::string& key);
bool is_policy_key(const std::string& key);

/// Throws ScenarioError (file "--set", 0:0) for the first override that is neither one of the
/// loader's own keys (`own`: a scenario's params, a trace's torch_* keys) nor a well-known or
/// policy key; the message lists every accepted key.
void check_set_keys(const Params& overrides, const std::vector<std::string>& own);

/// Copies every override that is a well-known or policy key into the scenario (well-known keys
/// change its fields; an out-of-range value throws ScenarioError). Other keys are the loader's own.
void apply_common_overrides(Scenario& scenario, const Params& overrides);

}  // namespace allocsim::scenario_detail
