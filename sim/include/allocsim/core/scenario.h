// A scenario: a device, a host program, and the defaults a run starts from.
// Loaded from YAML / built-ins / PyTorch traces by scenarios/; run by sim/ and hw/.
#pragma once
#include <cstdint>
#include <string>

#include "allocsim/core/params.h"
#include "allocsim/core/platform.h"
#include "allocsim/core/program.h"

namespace allocsim {

/// The device's memory and the BFC pool options (docs/design.md section 5).
struct DeviceSpec {
  std::uint64_t memory_limit = std::uint64_t(64) << 30;  // pool memory limit, bytes
  bool allow_growth = false;        // false: one region of the whole limit at first allocation (XLA)
  bool garbage_collection = false;
  double fragmentation_fraction = 0;  // 0: split threshold is 128 MiB
  std::uint64_t private_pool_limit = std::uint64_t(1) << 30;  // guard private-pool's own pool
};

struct Scenario {
  std::string name;
  std::string description;
  DeviceSpec device;
  PlatformProfile platform;  // host costs / callback latency (scenario may override defaults)
  Program program;
  // defaults a run starts from (CLI flags override)
  std::string default_policy = "immediate";
  std::string default_guard = "none";
  int semaphore = 32;  // XLA compute_semaphore_ capacity
  std::uint64_t seed = 1;
  Params params;  // scenario-level `--set`-able values (recorded for the report)
  /// PyTorch traces only: the trace's own max_memory_allocated / max_memory_reserved (0 = unknown).
  std::uint64_t reference_max_allocated = 0;
  std::uint64_t reference_max_reserved = 0;
  /// Why this scenario's race counts are no evidence of safety, "" when they are. A PyTorch trace
  /// replay sets it (the trace records no kernel accesses); run_one adds it to RunResult::warnings.
  std::string race_caveat;
};

}  // namespace allocsim
