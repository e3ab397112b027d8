// The scenario loader in a translation unit of its own: scenarios/loader.h and core/policy.h both
// declare allocsim::RegistryEntry today, so no file may include both (reported to their owners).
#include "load_scenario_tu.h"

#include "allocsim/scenarios/loader.h"

namespace allocsim::hw {

Scenario load_scenario_for_hw(const std::string& name_or_path, const Params& overrides) {
  return load_scenario(name_or_path, overrides);
}

}  // namespace allocsim::hw
