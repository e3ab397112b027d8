// See load_scenario_tu.cpp: a thin wrapper over scenarios' load_scenario().
#pragma once
#include <string>

#include "allocsim/core/scenario.h"

namespace allocsim::hw {
Scenario load_scenario_for_hw(const std::string& name_or_path, const Params& overrides);
}
