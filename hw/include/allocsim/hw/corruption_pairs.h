// Who corrupted whom, on the GPU and in the simulator, pair by pair (allocsim-hw validate).
//
// Why: the per-execution rates say THAT an execution corrupted more often on the GPU than the
// simulator predicts; the pairs say which race it was. The hardware names a foreign word's writer
// by the pattern tag it carries (TrialStats::foreign_sources); the simulator names the clobbering
// write of each manifest finding. Both are tallied per trial / per run under the program's buffer
// names, so a pair the GPU hits and the simulator never does points at the model's gap.
#pragma once
#include <map>
#include <utility>
#include <vector>

#include "allocsim/core/program.h"
#include "allocsim/core/result.h"
#include "allocsim/engine/execution_units.h"
#include "allocsim/hw/hw_device.h"
#include "allocsim/hw/validate_report.h"

namespace allocsim::hw {

class CorruptionPairTally {
 public:
  CorruptionPairTally(const Program& program, const ExecutionUnits& units) : program_(program), units_(units) {}

  /// One hardware trial's foreign reads: each (reader, writer) pair counts once per trial.
  void add_trial(const std::vector<ForeignSource>& sources);
  /// One simulated run's findings: each manifest (victim, clobberer) pair counts once per run; a
  /// clobber by a memset counts as ForeignSource::kZeroing, as the GPU cannot tell whose it was.
  void add_sim_run(const std::vector<Finding>& findings);
  /// Every pair either side saw, by reader then writer.
  std::vector<CorruptionPair> pairs() const;

 private:
  struct Count {
    int hw_trials = 0, sim_runs = 0;
    std::uint64_t hw_words = 0;
  };
  const Program& program_;
  const ExecutionUnits& units_;
  std::map<std::pair<BufferId, int>, Count> counts_;
};

}  // namespace allocsim::hw
