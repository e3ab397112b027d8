// The output of `allocsim-hw validate`: DIR/validate.json (schema below, relied on by reports) and
// DIR/validate.md (the same numbers as tables, plus the closing notes).
//
// validate.json: {"device", "scenario", "command", "platform", "trials_per_run", "runs": [
//   {"policy", "guard", "trials", "aliased", "corrupted", "corrupted_words", "peak_bytes_in_use",
//    "host_ns_per_free", "frees", "wall_ns", "error",
//    "sim": {"latent", "manifest", "manifest_rate", "peak_bytes_in_use", "completed"}}]}
// `aliased` / `corrupted` count TRIALS (a trial aliased if some allocation got bytes another
// allocation of the same trial had held; corrupted if any pattern check found a mismatch).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "allocsim/core/platform.h"

namespace allocsim::hw {

struct SimPrediction {
  std::uint64_t latent = 0;    // latent races in the simulated run (seed = trial 0's seed)
  std::uint64_t manifest = 0;  // manifest corruptions in the simulated run(s)
  double manifest_rate = 0;    // fraction of simulated trials (seeds) with >= 1 manifest corruption
  std::uint64_t peak_bytes_in_use = 0;
  bool completed = true;
  bool available = true;  // false: the simulator could not be run (message in error)
};

struct ValidateRun {
  std::string policy, guard;
  int trials = 0;
  int aliased = 0;    // trials with address reuse across allocations
  int corrupted = 0;  // trials with >= 1 pattern mismatch
  std::uint64_t corrupted_words = 0;
  std::uint64_t peak_bytes_in_use = 0;  // pool bytes in use, max over trials
  double host_ns_per_free = 0;          // median over trials of (host ns in release plans / releases)
  std::uint64_t frees = 0;              // releases per trial
  std::int64_t wall_ns = 0;             // all trials together
  std::string error;                    // non-empty: the run failed (e.g. starvation timeout)
  SimPrediction sim;
};

struct ValidateReport {
  std::string device;    // e.g. "NVIDIA H200 (sm_90, 143771 MiB, HIP on NVIDIA)"
  std::string scenario;
  std::string command;   // the exact command line
  PlatformProfile platform;
  std::string platform_source;  // file, or "defaults"
  int semaphore = 0;
  std::vector<ValidateRun> runs;
};

std::string validate_json(const ValidateReport& r);
std::string validate_markdown(const ValidateReport& r);
/// Writes DIR/validate.json and DIR/validate.md: both or neither (temp files, then two renames).
/// Throws std::runtime_error naming the path on failure.
void write_validate_files(const std::string& dir, const ValidateReport& r);

}  // namespace allocsim::hw
