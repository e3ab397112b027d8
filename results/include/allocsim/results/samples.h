// `allocsim run --samples N` (issue 17): the program played N times, each sample with the next
// seed (seeds::nth) and every cost drawn from the platform's spread (core/platform_spread.h), so a
// user reads how OFTEN each execution corrupts, with an interval, instead of the 0 or 1 of one
// timing. Samples run on `jobs` threads; each result lands in its own slot and the summary is
// computed in sample order, so the output is the same bytes for any thread count.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "allocsim/core/platform_spread.h"
#include "allocsim/core/result.h"
#include "allocsim/core/scenario.h"
#include "allocsim/results/progress.h"
#include "allocsim/results/run_config.h"
#include "allocsim/results/sample_summary.h"

namespace allocsim {

struct SampleSet {
  std::string scenario, policy, guard;
  int semaphore = 0;
  std::uint64_t first_seed = 0;
  int samples = 0;
  int executions = 1;                       // BeginExecution ops (engine/execution_units.h)
  std::vector<int> manifest_by_execution;   // [i]: samples with a manifest corruption in execution i
  int samples_with_manifest = 0;            // samples with one anywhere
  // Each sample's result, in sample order, without its finding records (the counts stay): the
  // attribution above is what the findings were kept for, and a sweep records these as its runs.
  std::vector<RunResult> runs;
};

/// Runs the samples. Throws RunInputError (bad policy or guard; samples < 1).
/// `progress` (optional) ticks once per finished sample; the caller finishes it, so one meter can
/// count the samples of several sets (a sampled sweep's points).
SampleSet run_samples(const Scenario& scenario, const RunConfig& config, const PlatformSpread& spread, int samples,
                      int jobs, results::ProgressMeter* progress = nullptr);

/// The spread of the platform file `--samples` draws from. Throws RunInputError when there is no
/// file (empty path), it does not load, or it has no "spread".
PlatformSpread spread_for_samples(const std::string& platform_path);

/// The counts and the quantiles over the samples (sample_summary.h).
SampleSummary summarize(const SampleSet& s);

std::string format_samples(const SampleSet& s);
/// summary_to_json(summarize(s)).
boost::json::object samples_to_json(const SampleSet& s);

}  // namespace allocsim
