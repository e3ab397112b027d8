// The simulator's side of a validation: one combination's simulated runs, each with the next seed
// and costs drawn from a platform spread, summed into a SimPrediction (validate_report.h). Needs
// no GPU: validate calls it beside its trials, repredict (repredict.h) on committed files.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "allocsim/core/platform.h"
#include "allocsim/core/platform_spread.h"
#include "allocsim/core/scenario.h"
#include "allocsim/engine/execution_units.h"
#include "allocsim/engine/step_schedule.h"
#include "allocsim/hw/corruption_pairs.h"
#include "allocsim/hw/timeline.h"
#include "allocsim/hw/validate_report.h"

namespace allocsim::hw {

/// What every simulated run of one combination shares.
struct PredictionSetup {
  std::string policy, guard;
  int semaphore = 32;
  Params params;                 // scenario params + --set values (policies read them too)
  std::vector<StepHold> holds;   // --schedule: the delays the runs replay
  int runs = 1;                  // simulated runs, run t with seeds::nth(scenario.seed, t)
  int timeline_run = 0;          // the run whose spans a timeline gets
};

/// The upper median (the middle element, the later of two), 0 for none: the statistic the
/// hardware's host cost per free has always used, for both sides.
double upper_median(std::vector<double> v);

/// The simulator's prediction: `setup.runs` runs under `platform`, each drawing its costs from
/// `spread` when it is not empty. Every finding is kept so each manifest corruption can be
/// attributed to its execution. `pairs` and `timeline`, when given, take each run's findings and
/// run setup.timeline_run's spans. The runs are independent, so they run on every core (Boost.Asio's
/// pool), each into its own slot, and are summed in index order: the same numbers for any thread
/// count.
SimPrediction predict(const Scenario& scenario, const PredictionSetup& setup, const PlatformProfile& platform,
                      const PlatformSpread& spread, const ExecutionUnits& units, CorruptionPairTally* pairs = nullptr,
                      TimelineCombination* timeline = nullptr);

/// The conditions one block of simulated runs is played under: a profile and the spread its costs
/// are drawn from.
struct RunConditions {
  PlatformProfile platform;
  PlatformSpread spread;
};

/// As predict(), with the runs split into consecutive blocks, run t under
/// blocks[t * blocks.size() / setup.runs]: a prediction that follows conditions measured block by
/// block of the trials (repredict --blocks). Same seeds as predict(); with one block it is
/// predict()'s result. SimPrediction::host_pace is the first block's; blocks must not be empty.
SimPrediction predict_by_blocks(const Scenario& scenario, const PredictionSetup& setup,
                                const std::vector<RunConditions>& blocks, const ExecutionUnits& units,
                                CorruptionPairTally* pairs = nullptr, TimelineCombination* timeline = nullptr);

/// The factors of a PaceBand: the host pace's p0 and p99 (quantiles at kSpreadLevels) each over
/// its p50. nullopt where there is no pace to take them from (the calibration predates it).
struct PaceBandFactors {
  double low = 1, high = 1;
};
std::optional<PaceBandFactors> pace_band_factors(const std::vector<double>& host_pace);
/// pace_band_factors, or std::runtime_error "--pace-band: `calibration` records no host pace ...":
/// the refusal validate and repredict both give before they predict or write anything.
PaceBandFactors require_pace_band_factors(const std::vector<double>& host_pace, const std::string& calibration);

/// predict() twice more, every host-pace draw of `spread` times each of `factors` (the pace's own
/// level and the rest of the spread as they are): a PaceBand without `sim` itself.
PaceBand predict_pace_band(const Scenario& scenario, const PredictionSetup& setup, const PlatformProfile& platform,
                           const PlatformSpread& spread, const ExecutionUnits& units, const PaceBandFactors& factors);

/// The host pace of trials with these launch cadences (TrialStats::host_cadence_ns), each over the
/// simulator's median for the same program (SimPrediction::host_cadence_ns): its quantiles at
/// kSpreadLevels. A trial without two launches in a row has no pace; empty when none has one.
std::vector<double> host_pace_of(const std::vector<double>& cadences_ns, double sim_cadence_ns);

}  // namespace allocsim::hw
