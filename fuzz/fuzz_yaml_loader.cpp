// libFuzzer target: the YAML scenario loader must turn any input into a Scenario or a
// ScenarioError: no crash, no hang, no sanitizer report, no other exception type.
#include <cstddef>
#include <cstdint>
#include <string>

#include "allocsim/scenarios/loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  allocsim::LoadLimits limits;
  limits.max_ops = 100'000;  // keep each run fast; the limit itself is what is being exercised
  try {
    allocsim::load_scenario_yaml(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml", {}, limits);
  } catch (const allocsim::ScenarioError&) {
  }
  return 0;
}
