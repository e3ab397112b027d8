// What a set of samples (results/samples.h) says, without its per-sample vectors: the counts behind
// each manifest-corruption rate and the quantiles of each distribution. It is the one form every
// output of the samples shares: `allocsim run --samples --json`, a sampled sweep's job records,
// results.json, samples.csv and its report. Rates are kept as counts (k of n samples) and their 95%
// intervals are computed from the counts wherever they are shown (binomial_interval), so a file
// read back gives the same interval as the run that wrote it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace allocsim {

/// The 95% Clopper-Pearson interval of k successes in n trials (Boost.Math), as {low, high}.
std::pair<double, double> binomial_interval(int k, int n);

/// k of n samples with a manifest corruption as every output of the samples writes it:
/// {"samples_with_manifest": k, "probability", "low", "high"} (the 95% interval).
boost::json::object rate_to_json(int k, int n);

/// Median, p95 and max over the samples (nearest rank).
struct SampleQuantiles {
  std::uint64_t median = 0, p95 = 0, max = 0;
};
/// {"median", "p95", "max"}: how every output of the samples writes one.
boost::json::object quantiles_to_json(const SampleQuantiles& q);

struct SampleSummary {
  std::string scenario, policy, guard;
  int semaphore = 0;
  std::uint64_t first_seed = 0;
  int samples = 0;
  int executions = 1;
  std::vector<int> manifest_by_execution;  // [i]: samples with a manifest corruption in execution i
  int samples_with_manifest = 0;           // samples with one in any execution
  SampleQuantiles latent, peak_bytes_in_use, host_blocked_policy_ns, makespan_ns;
  int incomplete = 0;  // samples that deadlocked or stalled
};

/// The object `allocsim run --samples --json` writes: the counts, each rate with its probability
/// and interval, and the quantiles.
boost::json::object summary_to_json(const SampleSummary& s);
/// Reads summary_to_json's object back (the counts; probabilities and intervals are recomputed).
/// nullopt, with `error` set, when a key is missing or ill-typed.
std::optional<SampleSummary> summary_from_json(const boost::json::value& v, std::string* error = nullptr);

/// A sampled sweep's samples.csv: a header and one row per summary, '\n' line ends. Columns: the
/// point, the samples, then manifest corruption in any execution and in each execution (samples
/// with one, probability, 95% interval), then the quantiles.
std::string samples_csv_text(const std::vector<SampleSummary>& points);

}  // namespace allocsim
