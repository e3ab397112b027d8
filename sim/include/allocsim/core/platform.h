// Platform profile: the host/device costs the simulator charges. Defaults are the H200 medians in
// docs/design.md section 7 (HIP on NVIDIA); `allocsim-hw calibrate` writes a measured replacement that
// `allocsim run --platform FILE` loads (results/platform_io.h reads/writes it as JSON).
#pragma once
#include "allocsim/core/types.h"

namespace allocsim {

struct PlatformProfile {
  TimeNs launch_overhead_ns = 3800;    // host time to enqueue one kernel / memset / copy
  TimeNs event_record_ns = 180;        // host time of an event record
  TimeNs event_query_ns = 1300;        // host time of an event query
  TimeNs stream_wait_ns = 160;         // host time to enqueue a stream wait
  TimeNs callback_enqueue_ns = 800;    // host time of hipStreamAddCallback
  TimeNs callback_latency_ns = 11000;  // marker reached on device -> callback runs on callback thread
  TimeNs callback_run_ns = 1000;       // callback thread busy time per callback (the host function)
  TimeNs host_alloc_ns = 200;          // host time of a pool allocation (BFC under its lock)
  TimeNs host_free_ns = 100;           // host time of a pool free
  TimeNs sync_wakeup_ns = 5000;        // host wake-up after a blocking synchronize completes
  double spin_ns_per_cycle = 0.512;    // calibrated clock64() spin: 1 M cycles = 512 us
};

}  // namespace allocsim
