// The host's launch cadence in a simulated run (issue 17): the simulator's counterpart of
// TrialStats::host_cadence_ns, which the HIP backend's run_trial measures on the GPU's host. Their
// ratio, trial by trial, is the host pace validate's host-paced prediction draws.
#pragma once
#include <utility>
#include <vector>

#include "allocsim/core/observer.h"

namespace allocsim::hw {

/// Watches a simulated run: the host's enqueue time of every launch (kernel, memset, copy) and
/// every interval the host was blocked. cadence_ns() is the time from each launch to the next,
/// summed over the gaps no blocked interval falls in.
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
