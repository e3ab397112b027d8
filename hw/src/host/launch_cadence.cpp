// See launch_cadence.h.
#include "allocsim/hw/launch_cadence.h"

#include <algorithm>

namespace allocsim::hw {

void LaunchCadence::on_device_op(const DeviceOpSpan& s) {
  if (s.kind != DeviceOpKind::Marker) launches_.push_back(s.enqueued);  // markers are the runtime's, not launches
}

void LaunchCadence::on_host_blocked(TimeNs from, TimeNs to, std::string_view why) {
  // A launch's wait for a callback slot is inside the launch call, which the GPU's host timer
  // counts in its cadence too (results/hw/h200-deferred).
  if (why != kCallbackSlotWait) blocked_.emplace_back(from, to);
}

double LaunchCadence::cadence_ns() {
  std::sort(launches_.begin(), launches_.end());
  std::sort(blocked_.begin(), blocked_.end());
  double sum = 0;
  std::size_t b = 0;
  for (std::size_t i = 1; i < launches_.size(); ++i) {
    const TimeNs lo = launches_[i - 1], hi = launches_[i];
    while (b < blocked_.size() && blocked_[b].second <= lo) ++b;  // ended before this gap
    TimeNs blocked = 0;
    for (std::size_t k = b; k < blocked_.size() && blocked_[k].first < hi; ++k)
      blocked += std::min(hi, blocked_[k].second) - std::max(lo, blocked_[k].first);
    if (blocked <= kWaitedGapNs) sum += double(hi - lo);
  }
  return sum;
}

}  // namespace allocsim::hw
