// See launch_cadence.h.
#include "allocsim/hw/launch_cadence.h"

#include <algorithm>

namespace allocsim::hw {

void LaunchCadence::on_device_op(const DeviceOpSpan& s) {
  if (s.kind != DeviceOpKind::Marker) launches_.push_back(s.enqueued);  // markers are the runtime's, not launches
}

void LaunchCadence::on_host_blocked(TimeNs from, TimeNs to, std::string_view) { blocked_.emplace_back(from, to); }

double LaunchCadence::cadence_ns() {
  std::sort(launches_.begin(), launches_.end());
  std::sort(blocked_.begin(), blocked_.end());
  double sum = 0;
  std::size_t b = 0;
  for (std::size_t i = 1; i < launches_.size(); ++i) {
    while (b < blocked_.size() && blocked_[b].second <= launches_[i - 1]) ++b;  // ended before this gap
    const bool waited = b < blocked_.size() && blocked_[b].first < launches_[i];
    if (!waited) sum += double(launches_[i] - launches_[i - 1]);
  }
  return sum;
}

}  // namespace allocsim::hw
