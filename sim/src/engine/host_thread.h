// The sim backend's host thread (docs/design.md section 3): its clock, the Plan steps it has left,
// and what it is blocked on. Pure state and the blocked-time accounting; SimDevice
// (sim_device_host.cpp) executes the plans and blocks and wakes it over the event queue.
//
// Blocked time by cause (RunMeasures::host_blocked_*_ns, issue 15): a compute-semaphore acquire
// is `semaphore`; an OOM wait (WaitPoolFree: the allocator's retry) `oom`; a Wait step of the
// program's own synchronisations (Step::program_sync) `sync`; every other Wait step came from a
// policy's or guard's Plan: `policy`. Each blocked interval has one cause, so their sum is the
// host's total blocked time (`stall`, RunMeasures::host_stall_ns).
#pragma once
#include <cstdint>

#include "allocsim/core/backend.h"
#include "allocsim/engine/plan_executor.h"

namespace allocsim {

struct HostThread {
  enum class Wait : std::uint8_t { None, Event, Stream, All, PoolFree, Semaphore, Hold, Done, Mutex, CallbackSlot };
  enum class Cause : std::uint8_t { Policy, Semaphore, Oom, Sync, kCount };

  TimeNs now = 0;
  PlanExecutor plan;
  Wait wait = Wait::None;
  Cause cause = Cause::Policy;  // of the current wait
  bool waking = false;          // a wake-up is queued
  std::uint64_t gen = 0;        // resume events of an older generation are stale
  TimeNs blocked_since = 0;
  std::uint64_t wait_rec = 0;        // Event
  StreamId wait_stream = kNoStream;  // Stream
  PoolId wait_pool = kSharedPool;    // PoolFree
  MutexId wait_mutex = kNoMutex;     // Mutex
  bool done = false;                 // the program has ended
  bool slot_wait = false;            // its last launch found the driver's callbacks full: block next
  bool slept = false;                // woken from a signalled wait: its next launch pays wake_first_launch_ns
  bool op_open = false;              // host op `op_index` is being run (a step: docs/explore.md)
  std::size_t op_index = 0;

  TimeNs stall = 0;                                 // total blocked time
  TimeNs busy = 0;                                  // total time charged: its costs, not its waits
  TimeNs blocked[std::size_t(Cause::kCount)] = {};  // the same, by cause

  // Host time in the plans of Release ops, from the plan's first step to its last, blocked time
  // included: what the HIP backend times around the same plans (RunMeasures::host_release_ns).
  bool in_release = false;
  TimeNs release_start = 0;
  TimeNs release_ns = 0;
  std::uint64_t releases = 0;  // host releases (Device::note_host_release), the per-free divisor

  /// A wait the host sleeps in on a condition variable until another thread signals it (a
  /// compute-semaphore acquire, an OOM wait), where the others poll: its wake-up is
  /// signal_wakeup_ns, and its next launch pays wake_first_launch_ns.
  bool sleeping() const { return wait == Wait::Semaphore || wait == Wait::PoolFree; }

  static Cause cause_of(const Step& step) {
    if (step.kind == Step::Kind::AcquireSemaphore) return Cause::Semaphore;
    if (step.kind == Step::Kind::WaitPoolFree) return Cause::Oom;
    return step.program_sync ? Cause::Sync : Cause::Policy;
  }
  void add_blocked(TimeNs d) {
    stall += d;
    blocked[std::size_t(cause)] += d;
  }
};

}  // namespace allocsim
