// `allocsim run --samples N --host-pace F1,F2,...` (issue 17): how close each execution is to its
// edge. The samples draw the host's pace from one calibrating process, but a host's pace on a
// program moves between processes and within one by far more than that spread (on the H200,
// seed-repro's trials at semaphore 32 ran at 0.69 to 1.35 of the simulator's median over 14
// sessions, results/hw/h200-warmup/analysis.md), and an execution at an edge follows it: the
// interval of one set of samples says nothing of that. So the same samples are played again with
// every host cost scaled by each factor on top of the pace each one draws, and the executions whose
// rate moves with it are shown factor by factor: a user sees which executions a host some percent
// slower or faster than the calibration's would decide.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <boost/json/array.hpp>

#include "allocsim/core/platform_spread.h"
#include "allocsim/core/scenario.h"
#include "allocsim/results/job_farm.h"
#include "allocsim/results/progress.h"
#include "allocsim/results/run_config.h"
#include "allocsim/results/samples.h"

namespace allocsim {

/// `spread` with its host pace multiplied by `factor` (> 0): every draw of it scales by `factor`.
/// A spread without a host pace gets a constant one of `factor` (its draws then take one more
/// number from each run's chooser, so a factor of 1 leaves such a spread as it is).
PlatformSpread scale_host_pace(const PlatformSpread& spread, double factor);

/// The samples at one factor: counts and quantiles only (the per-sample results are not kept).
struct PacePoint {
  double factor = 1;
  int samples = 0;
  std::vector<int> manifest_by_execution;  // [i]: samples with a manifest corruption in execution i
  int samples_with_manifest = 0;
  /// What a policy that withholds memory while the host runs ahead costs at this pace: a slower host
  /// runs less far ahead, so the deferring policies' peak falls (on the H200, conv-autotune 32
  /// under batched-callback: 245-252 MiB in the five trials at pace under 1.03, 210 at 1.80,
  /// results/hw/h200-deep-tail-2).
  SampleQuantiles peak_bytes_in_use;
};

/// Throws RunInputError unless every factor is positive and finite, and no factor repeats.
void check_pace_factors(const std::vector<double>& factors);

/// The samples of run_samples at the spread as it is, and again at each factor (ascending), with
/// the same seeds.
struct PacedSamples {
  SampleSet base;
  std::vector<PacePoint> points;
};

/// All of it as ONE run of the farm (job i: set i / samples, sample i % samples), since a worker
/// rank serves a single run per command. nullopt on a worker rank, which has served the
/// collector's jobs. Throws what run_samples throws, and RunInputError for bad factors. `progress`
/// ticks once per finished sample over all sets.
std::optional<PacedSamples> run_paced_samples(const Scenario& scenario, const RunConfig& config,
                                              const PlatformSpread& spread, int samples,
                                              const std::vector<double>& factors, results::JobFarm& farm,
                                              results::ProgressMeter* progress = nullptr);

/// The executions whose rate differs between factors by at least `moved` samples in 20 (5 points),
/// one row each with its rate at every factor (ascending), and a closing line computed from them:
/// the narrowest pair of neighbouring factors over which an execution goes from at most 10% to at
/// least 90% (or the reverse), or that no execution's rate moves. Then the peak in-use's median and
/// max at every factor, and a line computed from them: the median's lowest and highest, and at
/// which factors.
std::string format_pace_scan(const std::vector<PacePoint>& points);

/// [{"factor", "samples", "manifest_any", "manifest_by_execution": [...], "peak_bytes_in_use"}, ...]
/// in factor order; each rate and the quantiles as summary_to_json writes them (count, probability,
/// 95% interval; median, p95, max).
boost::json::array pace_scan_to_json(const std::vector<PacePoint>& points);

}  // namespace allocsim
