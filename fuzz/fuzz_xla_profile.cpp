// libFuzzer target: the XLA profile reader and the exact check must turn any input (XSpace bytes)
// into a report or a ProfileError: no crash, no hang, no sanitizer report, no other exception.
// The corpus (fuzz/corpus/xla) holds small hand-made XSpaces, good and truncated.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "allocsim/scenarios/xla_check.h"
#include "allocsim/scenarios/xla_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256 * 1024) return 0;
  try {
    const allocsim::xla::Profile p = allocsim::xla::parse_profile(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.xplane.pb");
    allocsim::xla::format_check(p, allocsim::xla::check_profile(p));
  } catch (const allocsim::xla::ProfileError&) {
  }
  return 0;
}
