// The sim backend's host thread (docs/design.md section 3): its clock, the Plan steps it has left,
// and what it is blocked on. Pure state; SimDevice
// (sim_device_host.cpp) executes the plans and blocks and wakes it over the event queue.
#pragma once
#include <cstdint>

#include "allocsim/core/backend.h"
#include "allocsim/engine/plan_executor.h"

namespace allocsim {

struct HostThread {
  enum class Wait : std::uint8_t { None, Event, Stream, All, PoolFree, Semaphore, Done };

  TimeNs now = 0;
  PlanExecutor plan;
  Wait wait = Wait::None;
  bool waking = false;           // a wake-up is queued
  std::uint64_t gen = 0;         // resume events of an older generation are stale
  TimeNs blocked_since = 0;
  std::uint64_t wait_rec = 0;    // Event
  StreamId wait_stream = kNoStream;  // Stream
  PoolId wait_pool = kSharedPool;    // PoolFree
  bool done = false;             // the program has ended

  TimeNs stall = 0;              // total blocked time
};

}  // namespace allocsim
