// What one run asks for, as `allocsim run` flags or one job of a sweep. Empty / unset fields mean
// "the scenario's default" (Scenario::default_policy, default_guard, semaphore, seed, platform).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "allocsim/core/params.h"
#include "allocsim/core/platform.h"

namespace allocsim {

/// Bad input to a run (unknown policy/guard, semaphore < 1, unreadable platform file): the CLI
/// prints the message and exits with status 2. The message lists the valid choices where there are any.
class RunInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunConfig {
  std::string scenario;           // built-in name or path (load_for_run in resolve.h loads it)
  std::string policy, guard;      // empty: the scenario's defaults
  std::optional<int> semaphore;   // compute-semaphore capacity, >= 1
  std::optional<std::uint64_t> seed;
  Params sets;                    // --set key=value, overlaid on the scenario's params
  std::optional<std::string> platform_file;  // calibrated profile (platform_io.h); replaces the scenario's
  std::optional<PlatformProfile> platform;   // an already-loaded profile (sweeps load once); wins over the file
  bool detect_races = true;
  std::size_t max_findings = 20;  // finding records kept (counts are always complete)
  bool findings_to_stderr = false;
  std::uint64_t max_events = 0;   // 0: unbounded
};

}  // namespace allocsim
