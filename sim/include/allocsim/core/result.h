// The result of one run: the object `allocsim run --json` writes (docs/design.md section 6, a contract)
// and one row of a sweep's results.csv. results/ serialises it; sim/ and hw/ fill it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "allocsim/core/types.h"

namespace allocsim {

/// One side of a race: an allocation and the access it made.
struct FindingSide {
  BufferId alloc = -1;
  std::uint64_t alloc_bytes = 0;
  std::string alloc_stream;
  TimeNs alloc_time = 0;
  TimeNs release_time = -1;  // -1: not released
  std::string op;            // "kernel", "memset", "copy", "host"
  std::string stream;        // stream of the access
  bool write = false;
  TimeNs start = 0, end = 0;
};

struct Finding {
  std::string kind;  // latent | manifest | double-free | use-after-release | unknown-free |
                     // callback-after-pool-destroyed | leak
  AddrRange range;
  FindingSide first, second;   // first = the earlier allocation's access (or the only one)
  std::string action_between;  // what the policy did between (e.g. "immediate free at t=...")
};

struct RunResult {
  std::string scenario, policy, guard;
  int semaphore = 0;
  std::uint64_t seed = 0;

  bool completed = true;   // false: deadlock/starvation; `error` says who waits for what
  std::string error;

  bool race_detection = true;
  std::uint64_t races_latent = 0;
  std::uint64_t races_manifest = 0;
  std::uint64_t double_frees = 0, use_after_release = 0, unknown_frees = 0;
  std::uint64_t callbacks_after_pool_destroyed = 0, leaks = 0;
  std::vector<Finding> findings;  // the first N (N = 20 by default), all kinds

  std::uint64_t peak_bytes_in_use = 0, peak_live_bytes = 0, peak_pending_bytes = 0, peak_pool_bytes = 0;
  TimeNs peak_in_use_time = 0, peak_live_time = 0, peak_pending_time = 0, peak_pool_time = 0;

  TimeNs makespan_ns = 0, host_stall_ns = 0;

  std::uint64_t allocs = 0, frees = 0, callbacks = 0, ooms = 0, fallbacks = 0;
  std::vector<std::string> warnings;  // distinct warnings (e.g. fallback reasons), in first-seen order

  /// Copied from Scenario::reference_max_* (PyTorch traces: the trace's own max_memory_allocated /
  /// max_memory_reserved), so a sweep's rows and report can set the replay beside PyTorch. 0 = unknown.
  std::uint64_t reference_max_allocated = 0;
  std::uint64_t reference_max_reserved = 0;
};

}  // namespace allocsim
