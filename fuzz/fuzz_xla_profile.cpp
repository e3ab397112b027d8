// libFuzzer target: the XLA profile reader, the exact check, the hazard analysis and the program
// replay's conversion must turn any input (XSpace bytes) into a report, a scenario, a ProfileError
// or a ScenarioError: no crash, no hang, no sanitizer report, no other exception.
// The corpus (fuzz/corpus/xla) holds small hand-made XSpaces, good and truncated.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "allocsim/scenarios/xla_check.h"
#include "allocsim/scenarios/xla_hazards.h"
#include "allocsim/scenarios/xla_profile.h"
#include "allocsim/scenarios/xla_program.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256 * 1024) return 0;
  try {
    const allocsim::xla::Profile p = allocsim::xla::parse_profile(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.xplane.pb");
    allocsim::xla::format_check(p, allocsim::xla::check_profile(p));
    const allocsim::xla::Usage u = allocsim::xla::map_usage(p);
    allocsim::xla::format_hazards(p, u, allocsim::xla::find_hazards(p, u));
    allocsim::LoadLimits limits;
    limits.max_ops = 100'000;
    allocsim::xla::profile_scenario(p, {}, limits);
  } catch (const allocsim::xla::ProfileError&) {
  } catch (const allocsim::ScenarioError&) {
  }
  return 0;
}
