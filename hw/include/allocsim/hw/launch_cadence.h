// The host's launch cadence in a simulated run (issue 17): the simulator's counterpart of
// TrialStats::host_cadence_ns, which the HIP backend's run_trial measures on the GPU's host. Their
// ratio, trial by trial, is the host pace validate's host-paced prediction draws.
#pragma once
#include <utility>
#include <vector>

#include "allocsim/core/observer.h"

namespace allocsim::hw {

/// A gap between two launches counts as waited in when the host spent more than this in blocking
/// waits within it, on both sides. Not 0: the HIP backend times every wait step of a plan, and one
/// whose event is already done returns in well under a microsecond without blocking (the
/// simulator reports no block for it); a real block costs at least the wake-up (sync_wakeup_ns,
/// about 3.5 us on the H200).
inline constexpr TimeNs kWaitedGapNs = 2000;

/// Watches a simulated run: the host's enqueue time of every launch (kernel, memset, copy) and
/// every interval the host was blocked (but a launch's wait for a callback slot, which the GPU's host
/// timer counts as the launch's own time). cadence_ns() is the time from each launch to the next,
/// summed over the gaps the host was blocked in for at most kWaitedGapNs.
class LaunchCadence final : public Observer {
 public:
  void on_device_op(const DeviceOpSpan& s) override;
  void on_host_blocked(TimeNs from, TimeNs to, std::string_view why) override;
  double cadence_ns();

 private:
  std::vector<TimeNs> launches_;
  std::vector<std::pair<TimeNs, TimeNs>> blocked_;
};

}  // namespace allocsim::hw
