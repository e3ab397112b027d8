// The memory samples behind the report's "live / pending / in-use over time" plot: an Observer
// that keeps every on_memory() sample of one run. The sweep re-runs one configuration per policy
// with it attached (observers never change a run's outcome) and writes memory_series.json.
#pragma once
#include <vector>

#include "allocsim/core/observer.h"
#include "allocsim/results/report.h"

namespace allocsim::results {

class MemorySampler : public Observer {
 public:
  void on_memory(TimeNs t, const MemoryCounters& m) override;
  /// Samples in time order; at one instant only the last counters are kept.
  const std::vector<MemorySample>& samples() const { return samples_; }

 private:
  std::vector<MemorySample> samples_;
};

}  // namespace allocsim::results
