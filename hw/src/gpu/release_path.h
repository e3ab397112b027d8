// The semaphore release's path, timed as validation's programs take it: a kernel's end on the
// GPU, HIP's callback thread handing the callback to the relay (callback_relay.h), the relay's
// body notifying a host asleep on a condition variable (HipDevice's acquire_semaphore). calibrate
// makes callback_after_op_ns of it; validate times it again in its own process, where it differs
// from the calibrating process's (results/hw/h200-release). HIP-only header.
#pragma once
#include <hip/hip_runtime.h>

#include <vector>

namespace allocsim::hw {

/// One sample per release, ns, in round order.
struct ReleasePathSamples {
  std::vector<double> after_op;    // the kernel's end to the relay's body (callback_after_op_ns)
  std::vector<double> behind;      // the kernel's end to HIP's hand-over
  std::vector<double> relay_wake;  // the hand-over to the relay's body
  std::vector<double> host_wake;   // the body's notify to the host awake
  std::vector<double> total;       // the kernel's end to the host awake
};

/// `rounds` releases one at a time on `s`: each a ~600 us spin, a store to mapped host memory
/// that a polling thread stamps (the spin's end on the host's clock, within a PCIe round trip),
/// then a callback through a relay that notifies the host, which sleeps until it does.
ReleasePathSamples time_release_path(hipStream_t s, double spin_ns_per_cycle, int rounds);

/// The same with `depth` rounds in flight, as a program under semaphore `depth` keeps them: the
/// host sleeps until round i's callback notifies it, then enqueues round i + depth, so depth - 1
/// rounds stay queued behind the callback that fires.
ReleasePathSamples time_pipelined_releases(hipStream_t s, double spin_ns_per_cycle, int depth, int rounds);

/// The first launch after such a wake-up (wake_first_launch_ns): `rounds` times, a ~600 us spin and
/// a relay callback behind it that notifies the host asleep on a condition variable, then
/// kWakeLaunches op-kernel launches on an idle second stream, each timed on the host. One sample
/// per round, ns: the first launch less the median of the last half, the same calls once awake.
std::vector<double> time_wake_first_launch(hipStream_t s, double spin_ns_per_cycle, int rounds);
inline constexpr int kWakeLaunches = 8;

}  // namespace allocsim::hw
