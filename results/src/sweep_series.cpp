// MemorySampler (see sweep_series.h).
#include "allocsim/results/sweep_series.h"

namespace allocsim::results {

void MemorySampler::on_memory(TimeNs t, const MemoryCounters& m) {
  MemorySample s{t, m.live, m.pending, m.in_use};
  if (!samples_.empty() && samples_.back().t == t) samples_.back() = s;
  else samples_.push_back(s);
}

}  // namespace allocsim::results
