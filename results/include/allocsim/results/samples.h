// `allocsim run --samples N` (issue 17): the program played N times, each sample with the next
// seed (seeds::nth) and every cost drawn from the platform's spread (core/platform_spread.h), so a
// user reads how OFTEN each execution corrupts, with an interval, instead of the 0 or 1 of one
// timing. Samples are jobs of the job farm (threads, or MPI ranks under mpirun); each result
// lands in its own slot and the summary is computed in sample order, so the output is the same
// bytes for any thread or rank count.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "allocsim/core/platform_spread.h"
#include "allocsim/core/result.h"
#include "allocsim/core/scenario.h"
#include "allocsim/results/job_farm.h"
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

/// One sample, as a job of the farm returns it: its result without finding records, and the
/// executions a manifest race corrupted in it (what the findings were needed for).
struct SampleRun {
  RunResult result;
  int executions = 1;                    // the program's, to size the counts
  std::vector<int> manifest_executions;  // ascending
};

/// Sample `sample` (0-based): seed seeds::nth(config's seed, sample), every cost drawn from
/// `spread`. Throws what run_one throws (RunInputError on bad input).
SampleRun run_sample(const Scenario& scenario, const RunConfig& config, const PlatformSpread& spread, int sample);
/// A sample as the farm carries it and a sweep record holds it (exact: the round trip gives back
/// the same bytes).
std::string sample_run_text(const SampleRun& s);
/// Throws std::runtime_error on text that is not sample_run_text's.
SampleRun sample_run_from_text(const std::string& text);
/// The same from an already parsed value (a sweep record's "sample").
SampleRun sample_run_from_json(const boost::json::value& value);
/// The set of `runs` (sample order). Throws RunInputError when there are none.
SampleSet assemble_samples(std::vector<SampleRun>&& runs);

/// The samples of each spread in `spreads`, `samples` of each with the same seeds, as ONE run of the
/// farm (job i: spreads[i / samples], sample i % samples; a worker rank serves a single run per
/// command): every run in job order on the collector, nullopt on a worker rank. Throws
/// RunInputError (bad policy or guard; samples < 1; a sample that failed, named with its index).
std::optional<std::vector<SampleRun>> run_sample_jobs(const Scenario& scenario, const RunConfig& config,
                                                      const std::vector<PlatformSpread>& spreads, int samples,
                                                      results::JobFarm& farm, results::ProgressMeter* progress);

/// Runs the samples on the farm (job_farm.h): the set on the collector, nullopt on a worker rank
/// (which has served the collector's samples). Throws RunInputError (bad policy or guard;
/// samples < 1; a sample that failed, named with its index). `progress` (optional) ticks once per
/// finished sample.
std::optional<SampleSet> run_samples(const Scenario& scenario, const RunConfig& config, const PlatformSpread& spread,
                                     int samples, results::JobFarm& farm, results::ProgressMeter* progress = nullptr);
/// The same on `jobs` threads of this process.
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
