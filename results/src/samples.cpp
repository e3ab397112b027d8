// See samples.h.
#include "allocsim/results/samples.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "allocsim/core/seeds.h"
#include "allocsim/engine/execution_units.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/runner.h"
#include "report_format.h"

namespace allocsim {
namespace {

std::string pct(double v) { return results::detail::fixed(100 * v, 1) + "%"; }

/// Median, p95 and max of one measure over the samples (nearest rank).
template <class Get>
SampleQuantiles quantiles(const std::vector<RunResult>& runs, Get get) {
  std::vector<std::uint64_t> v;
  for (const RunResult& r : runs) v.push_back(std::uint64_t(get(r)));
  std::sort(v.begin(), v.end());
  auto at = [&](double p) { return v.empty() ? 0 : v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))]; };
  return {at(0.5), at(0.95), at(1.0)};
}

std::string rate(int k, int n) {
  const auto [lo, hi] = binomial_interval(k, n);
  return std::to_string(k) + "/" + std::to_string(n) + "  " + pct(n ? double(k) / n : 0) + " [" + pct(lo) + ", " +
         pct(hi) + "]";
}

}  // namespace

SampleSet run_samples(const Scenario& scenario, const RunConfig& config, const PlatformSpread& spread, int samples,
                      int jobs, results::ProgressMeter* progress) {
  if (samples < 1) throw RunInputError("--samples must be at least 1");
  std::vector<RunResult> results(static_cast<std::size_t>(samples));
  std::vector<std::string> errors(static_cast<std::size_t>(samples));
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int i = next++; i < samples; i = next++) {
      try {
        results[std::size_t(i)] = run_one(scenario, config, {}, [&](SimOptions& o) {
          o.seed = seeds::nth(o.seed, std::uint64_t(i));
          o.spread = spread.empty() ? nullptr : &spread;
          o.max_findings = std::size_t(1) << 30;  // every manifest finding, to attribute each
        });
      } catch (const std::exception& e) {
        errors[std::size_t(i)] = e.what();
      }
      if (progress) progress->tick();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, std::min(jobs, samples)); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const std::string& e : errors)
    if (!e.empty()) throw RunInputError(e);  // the same bad input fails every sample: report the first

  const ExecutionUnits units = execution_units(scenario.program);
  SampleSet s;
  s.samples = samples;
  s.executions = units.units;
  s.manifest_by_execution.assign(std::size_t(units.units), 0);
  s.scenario = results[0].scenario, s.policy = results[0].policy, s.guard = results[0].guard;
  s.semaphore = results[0].semaphore;
  s.first_seed = results[0].seed;
  for (RunResult& r : results) {
    const std::set<int> hit = manifest_units(units, r.findings);
    for (int e : hit) ++s.manifest_by_execution[std::size_t(e)];
    s.samples_with_manifest += hit.empty() ? 0 : 1;
    std::vector<Finding>().swap(r.findings);  // attributed; up to every finding of a run, not kept
  }
  s.runs = std::move(results);
  return s;
}

PlatformSpread spread_for_samples(const std::string& platform_path) {
  if (platform_path.empty())
    throw RunInputError("--samples needs --platform FILE with a \"spread\" (e.g. results/hw/h200-samples/calibration.json)");
  PlatformSpread spread;
  try {
    spread = load_platform_spread(platform_path);
  } catch (const PlatformError& e) {
    throw RunInputError(e.what());  // bad input, exit status 2, like a bad --platform for one run
  }
  if (spread.empty())
    throw RunInputError("--samples: " + platform_path + " has no \"spread\": nothing to draw costs from");
  return spread;
}

SampleSummary summarize(const SampleSet& s) {
  SampleSummary m;
  m.scenario = s.scenario, m.policy = s.policy, m.guard = s.guard;
  m.semaphore = s.semaphore;
  m.first_seed = s.first_seed;
  m.samples = s.samples;
  m.executions = s.executions;
  m.manifest_by_execution = s.manifest_by_execution;
  m.samples_with_manifest = s.samples_with_manifest;
  m.latent = quantiles(s.runs, [](const RunResult& r) { return r.races_latent; });
  m.peak_bytes_in_use = quantiles(s.runs, [](const RunResult& r) { return r.peak_bytes_in_use; });
  m.host_blocked_policy_ns = quantiles(s.runs, [](const RunResult& r) { return r.host_blocked_policy_ns; });
  m.makespan_ns = quantiles(s.runs, [](const RunResult& r) { return r.makespan_ns; });
  m.incomplete = int(std::count_if(s.runs.begin(), s.runs.end(), [](const RunResult& r) { return !r.completed; }));
  return m;
}

std::string format_samples(const SampleSet& s) {
  const SampleSummary m = summarize(s);
  std::string o;
  o += "scenario  " + s.scenario + "   policy " + s.policy + "   guard " + s.guard + "   semaphore " +
       std::to_string(s.semaphore) + "\n";
  o += "samples   " + std::to_string(s.samples) + " (seeds " + std::to_string(s.first_seed) + ".." +
       std::to_string(s.first_seed + std::uint64_t(s.samples) - 1) + "), every cost drawn from the platform's spread\n";
  o += "manifest corruption, samples with one (95% Clopper-Pearson interval):\n";
  std::uint64_t hits = 0;
  for (int e = 0; e < s.executions; ++e) {
    o += "  execution " + std::to_string(e) + "   " + rate(s.manifest_by_execution[std::size_t(e)], s.samples) + "\n";
    hits += std::uint64_t(s.manifest_by_execution[std::size_t(e)]);
  }
  o += "  any execution  " + rate(s.samples_with_manifest, s.samples) + "\n";
  const double execs = double(s.samples) * s.executions;
  o += "  per execution, overall  " + pct(execs > 0 ? double(hits) / execs : 0) + "\n";
  const auto [lat_lo, lat_hi] = std::minmax_element(s.runs.begin(), s.runs.end(), [](const RunResult& a, const RunResult& b) {
    return a.races_latent < b.races_latent;
  });
  const std::uint64_t lo = lat_lo->races_latent, hi = lat_hi->races_latent;
  o += "latent    " + std::to_string(lo) + (lo == hi ? " in every sample (this schedule's races do not depend on timing)"
                                                     : "–" + std::to_string(hi) + " (timing changes the schedule)") + "\n";
  auto mib = [](std::uint64_t b) { return results::detail::fixed(double(b) / (1 << 20), 2) + " MiB"; };
  auto us = [](std::uint64_t t) { return results::detail::fixed(double(t) / 1000, 1) + " us"; };
  o += "peak      in-use median " + mib(m.peak_bytes_in_use.median) + ", p95 " + mib(m.peak_bytes_in_use.p95) +
       ", max " + mib(m.peak_bytes_in_use.max) + "\n";
  o += "blocked   by the policy median " + us(m.host_blocked_policy_ns.median) + ", p95 " +
       us(m.host_blocked_policy_ns.p95) + ", max " + us(m.host_blocked_policy_ns.max) + "\n";
  o += "makespan  median " + us(m.makespan_ns.median) + ", p95 " + us(m.makespan_ns.p95) + ", max " +
       us(m.makespan_ns.max) + "\n";
  if (m.incomplete) o += "incomplete " + std::to_string(m.incomplete) + " samples did not complete\n";
  return o;
}

boost::json::object samples_to_json(const SampleSet& s) { return summary_to_json(summarize(s)); }

}  // namespace allocsim
