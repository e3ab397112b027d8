// See samples.h.
#include "allocsim/results/samples.h"

#include <algorithm>
#include <atomic>
#include <boost/math/distributions/binomial.hpp>
#include <set>
#include <thread>

#include "allocsim/core/seeds.h"
#include "allocsim/engine/execution_units.h"
#include "allocsim/results/runner.h"
#include "report_format.h"

namespace allocsim {
namespace {

std::string pct(double v) { return results::detail::fixed(100 * v, 1) + "%"; }

template <class T>
T quantile(std::vector<T> v, double p) {
  if (v.empty()) return T{};
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))];
}

std::string rate(int k, int n) {
  const auto [lo, hi] = binomial_interval(k, n);
  return std::to_string(k) + "/" + std::to_string(n) + "  " + pct(n ? double(k) / n : 0) + " [" + pct(lo) + ", " +
         pct(hi) + "]";
}

}  // namespace

std::pair<double, double> binomial_interval(int k, int n) {
  if (n <= 0) return {0, 1};
  using boost::math::binomial_distribution;
  const double alpha = 0.05 / 2;
  return {binomial_distribution<>::find_lower_bound_on_p(n, k, alpha, binomial_distribution<>::clopper_pearson_exact_interval),
          binomial_distribution<>::find_upper_bound_on_p(n, k, alpha, binomial_distribution<>::clopper_pearson_exact_interval)};
}

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
  if (progress) progress->finish();
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
  for (const RunResult& r : results) {
    const std::set<int> hit = manifest_units(units, r.findings);
    for (int e : hit) ++s.manifest_by_execution[std::size_t(e)];
    s.samples_with_manifest += hit.empty() ? 0 : 1;
    s.latent.push_back(r.races_latent);
    s.peak_in_use.push_back(r.peak_bytes_in_use);
    s.blocked_policy.push_back(r.host_blocked_policy_ns);
    s.makespan.push_back(r.makespan_ns);
    s.incomplete += r.completed ? 0 : 1;
  }
  return s;
}

std::string format_samples(const SampleSet& s) {
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
  const auto [lat_lo, lat_hi] = std::minmax_element(s.latent.begin(), s.latent.end());
  o += "latent    " + std::to_string(*lat_lo) + (*lat_lo == *lat_hi ? " in every sample (this schedule's races do not depend on timing)"
                                                                     : "–" + std::to_string(*lat_hi) + " (timing changes the schedule)") + "\n";
  auto mib = [](std::uint64_t b) { return results::detail::fixed(double(b) / (1 << 20), 2) + " MiB"; };
  auto us = [](TimeNs t) { return results::detail::fixed(double(t) / 1000, 1) + " us"; };
  o += "peak      in-use median " + mib(quantile(s.peak_in_use, 0.5)) + ", p95 " + mib(quantile(s.peak_in_use, 0.95)) +
       ", max " + mib(quantile(s.peak_in_use, 1.0)) + "\n";
  o += "blocked   by the policy median " + us(quantile(s.blocked_policy, 0.5)) + ", p95 " +
       us(quantile(s.blocked_policy, 0.95)) + ", max " + us(quantile(s.blocked_policy, 1.0)) + "\n";
  o += "makespan  median " + us(quantile(s.makespan, 0.5)) + ", p95 " + us(quantile(s.makespan, 0.95)) + ", max " +
       us(quantile(s.makespan, 1.0)) + "\n";
  if (s.incomplete) o += "incomplete " + std::to_string(s.incomplete) + " samples did not complete\n";
  return o;
}

boost::json::object samples_to_json(const SampleSet& s) {
  boost::json::object o;
  o["scenario"] = s.scenario;
  o["policy"] = s.policy;
  o["guard"] = s.guard;
  o["semaphore"] = s.semaphore;
  o["first_seed"] = s.first_seed;
  o["samples"] = s.samples;
  o["executions"] = s.executions;
  boost::json::array per;
  for (int e = 0; e < s.executions; ++e) {
    const int k = s.manifest_by_execution[std::size_t(e)];
    const auto [lo, hi] = binomial_interval(k, s.samples);
    per.push_back(boost::json::object{{"samples_with_manifest", k}, {"probability", double(k) / s.samples},
                                      {"low", lo}, {"high", hi}});
  }
  o["manifest_by_execution"] = std::move(per);
  o["samples_with_manifest"] = s.samples_with_manifest;
  auto dist = [](const auto& v) {
    return boost::json::object{{"median", quantile(v, 0.5)}, {"p95", quantile(v, 0.95)}, {"max", quantile(v, 1.0)}};
  };
  o["latent"] = dist(s.latent);
  o["peak_bytes_in_use"] = dist(s.peak_in_use);
  o["host_blocked_policy_ns"] = dist(s.blocked_policy);
  o["makespan_ns"] = dist(s.makespan);
  o["incomplete"] = s.incomplete;
  return o;
}

}  // namespace allocsim
