// The backend calls the HIP backend times on the host thread (TrialStats::calls, and
// release_calls inside release plans), each named beside the platform-profile field the simulator
// charges for it. One table, read by the backend (hip_device.hip), calibration (which sets those
// fields from the calls' mean cost on a calibration workload), validate.json's writer and the
// session summary.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "allocsim/core/types.h"

namespace allocsim::hw {

/// The backend calls the host thread makes, timed one by one (issue 15, point 5), each beside the
/// platform-profile field the simulator charges for it. `wait` (blocking waits: an event, a stream,
/// the device, a free, the semaphore) has no field: the simulator charges a wait its length.
enum class HostCall : std::uint8_t {
  EventCreate, EventDestroy, EventRecord, StreamWait, EventQuery, CallbackEnqueue, PoolAllocate, PoolFree, Launch,
  Wait, kCount
};
struct HostCallInfo {
  const char* name;
  const char* platform_field;  // "" : none
};
inline constexpr std::array<HostCallInfo, std::size_t(HostCall::kCount)> kHostCalls = {{
    {"event_create", "event_create_ns"},
    {"event_destroy", "event_destroy_ns"},
    {"event_record", "event_record_ns"},
    {"stream_wait", "stream_wait_ns"},
    {"event_query", "event_query_ns"},
    {"callback_enqueue", "callback_enqueue_ns"},
    {"pool_allocate", "host_alloc_ns"},
    {"pool_free", "host_free_ns"},
    {"launch", "launch_overhead_ns"},
    {"wait", ""},
}};
struct CallTime {
  std::uint64_t calls = 0;
  TimeNs ns = 0;
};

}  // namespace allocsim::hw
