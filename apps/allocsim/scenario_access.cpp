// See scenario_access.h: the only CLI file that includes the scenario loader header.
#include "scenario_access.h"

#include "allocsim/scenarios/loader.h"

namespace allocsim::cli {

std::vector<std::pair<std::string, std::string>> builtin_scenarios() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : list_scenarios()) out.emplace_back(e.name, e.description);
  return out;
}

Scenario load_scenario_for_run(const std::string& name_or_path, const Params& overrides) {
  return load_scenario(name_or_path, overrides);
}

}  // namespace allocsim::cli
