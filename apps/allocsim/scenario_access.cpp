// See scenario_access.h.
#include "scenario_access.h"

#include "allocsim/scenarios/loader.h"

namespace allocsim::cli {

std::vector<std::pair<std::string, std::string>> builtin_scenarios() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : list_scenarios()) out.emplace_back(e.name, e.description);
  return out;
}

}  // namespace allocsim::cli
