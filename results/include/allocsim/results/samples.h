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
#include "allocsim/core/scenario.h"
#include "allocsim/results/progress.h"
#include "allocsim/results/run_config.h"

namespace allocsim {

struct SampleSet {
  std::string scenario, policy, guard;
  int semaphore = 0;
  std::uint64_t first_seed = 0;
  int samples = 0;
  int executions = 1;                       // BeginExecution ops (engine/execution_units.h)
  std::vector<int> manifest_by_execution;   // [i]: samples with a manifest corruption in execution i
  int samples_with_manifest = 0;            // samples with one anywhere
  std::vector<std::uint64_t> latent;        // per sample: latent races
  std::vector<std::uint64_t> peak_in_use;   // per sample, bytes
  std::vector<TimeNs> blocked_policy, makespan;  // per sample
  int incomplete = 0;                       // samples that deadlocked or stalled
};

/// Runs the samples. Throws RunInputError (bad policy or guard; samples < 1).
/// `progress` (optional) ticks once per finished sample and is finished at the end.
SampleSet run_samples(const Scenario& scenario, const RunConfig& config, const PlatformSpread& spread, int samples,
                      int jobs, results::ProgressMeter* progress = nullptr);

/// The 95% Clopper-Pearson interval of k successes in n trials (Boost.Math), as {low, high}.
std::pair<double, double> binomial_interval(int k, int n);

std::string format_samples(const SampleSet& s);
boost::json::object samples_to_json(const SampleSet& s);

}  // namespace allocsim
