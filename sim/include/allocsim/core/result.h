// The result of one run: the object `allocsim run --json` writes (docs/design.md section 6, a contract)
// and one row of a sweep's results.csv. results/ serialises it; simulate() (sim/engine) writes it,
// from the parts its producers hand over: the engine's RunMeasures, its lifetime findings and the
// race detector's report.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

/// What a finding is: the two races (race detector) and the lifetime bugs (the engine).
enum class FindingKind : std::uint8_t {
  Latent,
  Manifest,
  DoubleFree,
  UseAfterRelease,
  UnknownFree,
  CallbackAfterPoolDestroyed,
  Leak,
};
inline constexpr std::size_t kFindingKinds = 7;

/// A kind's names, an output contract (golden tests pin them): `name` in finding records and the
/// run summary, `count_key` for its count in the result JSON's `races` object and CSV columns.
struct FindingKindNames {
  FindingKind kind;
  std::string_view name;
  std::string_view count_key;
};
/// In FindingKind order, which is also the order of the counts in JSON, CSV and the summary.
inline constexpr std::array<FindingKindNames, kFindingKinds> kFindingKindNames{{
    {FindingKind::Latent, "latent", "latent"},
    {FindingKind::Manifest, "manifest", "manifest"},
    {FindingKind::DoubleFree, "double-free", "double_frees"},
    {FindingKind::UseAfterRelease, "use-after-release", "use_after_release"},
    {FindingKind::UnknownFree, "unknown-free", "unknown_frees"},
    {FindingKind::CallbackAfterPoolDestroyed, "callback-after-pool-destroyed",
     "callbacks_after_pool_destroyed"},
    {FindingKind::Leak, "leak", "leaks"},
}};
static_assert(
    [] {
      for (std::size_t i = 0; i < kFindingKinds; ++i)
        if (std::size_t(kFindingKindNames[i].kind) != i) return false;
      return true;
    }(),
    "kFindingKindNames is indexed by FindingKind");

constexpr std::string_view finding_kind_name(FindingKind k) { return kFindingKindNames[std::size_t(k)].name; }
constexpr std::optional<FindingKind> parse_finding_kind(std::string_view name) {
  for (const FindingKindNames& n : kFindingKindNames)
    if (n.name == name) return n.kind;
  return std::nullopt;
}
/// Lifetime bugs (everything but the two races): found and counted by the engine, not the detector.
constexpr bool is_lifetime(FindingKind k) { return k != FindingKind::Latent && k != FindingKind::Manifest; }

struct Finding {
  FindingKind kind = FindingKind::Latent;
  AddrRange range;
  FindingSide first, second;   // first = the earlier allocation's access (or the only one)
  std::string action_between;  // what the policy did between (e.g. "immediate free at t=...")
};

/// What the engine measured in a run: its part of the RunResult (SimDevice::measures()).
struct RunMeasures {
  bool completed = true;   // false: deadlock/starvation; `error` says who waits for what
  std::string error;

  std::uint64_t peak_bytes_in_use = 0, peak_live_bytes = 0, peak_pending_bytes = 0, peak_pool_bytes = 0;
  TimeNs peak_in_use_time = 0, peak_live_time = 0, peak_pending_time = 0, peak_pool_time = 0;

  TimeNs makespan_ns = 0, host_stall_ns = 0;
  // Host time blocked, by cause (issue 15): the policy's and guard's own waits, the compute
  // semaphore, OOM waits (allocator retry), and the program's own synchronisations (its
  // event/stream/device syncs, shutdown's drain). Each blocked interval has one cause, so together
  // they are the host's blocked time, host_stall_ns (the sim engine: sim/src/engine/host_thread.h).
  TimeNs host_blocked_policy_ns = 0, host_blocked_semaphore_ns = 0, host_blocked_oom_ns = 0,
         host_blocked_sync_ns = 0;
  // Host time spent working, not blocked: every cost charged to the host thread (its calls,
  // bookkeeping and delays), and a launch's wait inside the driver for a host-callback slot
  // (PlatformProfile::pending_callback_limit), which is the launch call's own time as the HIP
  // backend's counterpart, TrialStats::host_busy_ns, measures it.
  TimeNs host_busy_ns = 0;
  TimeNs device_idle_ns = 0;  // time within the makespan when no stream ran a device op
  // Host time spent in the plans of Release ops (policy and guard work, their backend calls and
  // waits), and the host releases it is spread over: host_release_ns / releases is a policy's host
  // cost per free, measured the same way on the HIP backend (results/hw/h200/validate.md).
  TimeNs host_release_ns = 0;
  std::uint64_t releases = 0;

  std::uint64_t allocs = 0, frees = 0, callbacks = 0, ooms = 0, fallbacks = 0;
  std::vector<std::string> warnings;  // distinct warnings (e.g. fallback reasons), in first-seen order
};

struct RunResult : RunMeasures {
  std::string scenario, policy, guard;
  int semaphore = 0;
  std::uint64_t seed = 0;

  bool race_detection = true;
  std::uint64_t races_latent = 0;
  std::uint64_t races_manifest = 0;
  std::uint64_t double_frees = 0, use_after_release = 0, unknown_frees = 0;
  std::uint64_t callbacks_after_pool_destroyed = 0, leaks = 0;
  std::vector<Finding> findings;  // the first N (N = 20 by default), all kinds

  /// Copied from Scenario::reference_max_* (PyTorch traces: the trace's own max_memory_allocated /
  /// max_memory_reserved), so a sweep's rows and report can set the replay beside PyTorch. 0 = unknown.
  std::uint64_t reference_max_allocated = 0;
  std::uint64_t reference_max_reserved = 0;

 private:
  template <class Self>  // RunResult or const RunResult
  static auto& count_field(Self& r, FindingKind k) {
    switch (k) {
      case FindingKind::Latent: return r.races_latent;
      case FindingKind::Manifest: return r.races_manifest;
      case FindingKind::DoubleFree: return r.double_frees;
      case FindingKind::UseAfterRelease: return r.use_after_release;
      case FindingKind::UnknownFree: return r.unknown_frees;
      case FindingKind::CallbackAfterPoolDestroyed: return r.callbacks_after_pool_destroyed;
      case FindingKind::Leak: break;
    }
    return r.leaks;
  }

 public:
  /// The count of one kind (the field above that holds it).
  std::uint64_t& count(FindingKind k) { return count_field(*this, k); }
  std::uint64_t count(FindingKind k) const { return count_field(*this, k); }
};

}  // namespace allocsim
