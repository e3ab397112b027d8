// See samples.h.
#include "allocsim/results/samples.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>
#include <stdexcept>

#include "allocsim/core/seeds.h"
#include "allocsim/engine/execution_units.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/runner.h"
#include "allocsim/results/sweep_record.h"
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

SampleRun run_sample(const Scenario& scenario, const RunConfig& config, const PlatformSpread& spread, int sample) {
  RunResult r = run_one(scenario, config, {}, [&](SimOptions& o) {
    o.seed = seeds::nth(o.seed, std::uint64_t(sample));
    o.spread = spread.empty() ? nullptr : &spread;
    o.max_findings = std::size_t(1) << 30;  // every manifest finding, to attribute each
  });
  const ExecutionUnits units = execution_units(scenario.program);
  SampleRun s;
  s.executions = units.units;
  for (int e : manifest_units(units, r.findings)) s.manifest_executions.push_back(e);
  std::vector<Finding>().swap(r.findings);  // attributed; up to every finding of a run, not kept
  s.result = std::move(r);
  return s;
}

std::string sample_run_text(const SampleRun& s) {
  std::string out = "{\"executions\":" + std::to_string(s.executions) + ",\"manifest\":[";
  for (std::size_t i = 0; i < s.manifest_executions.size(); ++i)
    out += (i ? "," : "") + std::to_string(s.manifest_executions[i]);
  return out + "],\"result\":" + results::run_result_json(s.result) + "}";
}

SampleRun sample_run_from_text(const std::string& text) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(text, ec);
  if (ec) throw std::runtime_error("not a sample: " + text.substr(0, 80));
  return sample_run_from_json(v);
}

SampleRun sample_run_from_json(const boost::json::value& v) {
  const boost::json::object* o = v.if_object();
  const boost::json::value* execs = o ? o->if_contains("executions") : nullptr;
  const boost::json::value* manifest = o ? o->if_contains("manifest") : nullptr;
  const boost::json::value* result = o ? o->if_contains("result") : nullptr;
  if (!execs || !execs->is_int64() || !manifest || !manifest->is_array() || !result)
    throw std::runtime_error("not a sample: " + boost::json::serialize(v).substr(0, 80));
  SampleRun s;
  s.executions = int(execs->as_int64());
  for (const boost::json::value& e : manifest->as_array()) s.manifest_executions.push_back(int(e.as_int64()));
  std::string error;
  auto r = results::run_result_from_value(*result, &error);
  if (!r) throw std::runtime_error("not a sample's result: " + error);
  s.result = std::move(*r);
  return s;
}

SampleSet assemble_samples(std::vector<SampleRun>&& runs) {
  if (runs.empty()) throw RunInputError("--samples must be at least 1");
  SampleSet s;
  s.samples = int(runs.size());
  s.executions = runs[0].executions;
  s.manifest_by_execution.assign(std::size_t(s.executions), 0);
  const RunResult& first = runs[0].result;
  s.scenario = first.scenario, s.policy = first.policy, s.guard = first.guard;
  s.semaphore = first.semaphore;
  s.first_seed = first.seed;
  for (SampleRun& r : runs) {
    for (int e : r.manifest_executions) ++s.manifest_by_execution[std::size_t(e)];
    s.samples_with_manifest += r.manifest_executions.empty() ? 0 : 1;
    s.runs.push_back(std::move(r.result));
  }
  return s;
}

std::optional<std::vector<SampleRun>> run_sample_jobs(const Scenario& scenario, const RunConfig& config,
                                                      const std::vector<PlatformSpread>& spreads, int samples,
                                                      results::JobFarm& farm, results::ProgressMeter* progress) {
  if (samples < 1) throw RunInputError("--samples must be at least 1");
  check_run_config(scenario, config);  // on every rank, before any serves
  const std::size_t n = std::size_t(samples);
  const results::JobHandler handler = [&](std::size_t i, const std::string&) {
    return sample_run_text(run_sample(scenario, config, spreads[i / n], int(i % n)));
  };
  if (!farm.is_collector()) {
    farm.serve(handler);
    return std::nullopt;
  }
  std::vector<SampleRun> runs(n * spreads.size());
  results::FarmRun job;
  for (std::size_t i = 0; i < runs.size(); ++i) job.todo.push_back(i);
  job.progress = progress;
  const std::vector<results::JobFailure> failed =
      farm.run(job, handler, [&](std::size_t i, std::string&& payload) { runs[i] = sample_run_from_text(payload); });
  // The same bad input fails every sample: report the first.
  if (!failed.empty())
    throw RunInputError("sample " + std::to_string(failed[0].index % n) +
                        (failed[0].rank > 0 ? " (rank " + std::to_string(failed[0].rank) + ")" : "") + ": " +
                        failed[0].what);
  return runs;
}

std::optional<SampleSet> run_samples(const Scenario& scenario, const RunConfig& config, const PlatformSpread& spread,
                                     int samples, results::JobFarm& farm, results::ProgressMeter* progress) {
  std::optional<std::vector<SampleRun>> runs = run_sample_jobs(scenario, config, {spread}, samples, farm, progress);
  if (!runs) return std::nullopt;
  return assemble_samples(std::move(*runs));
}

SampleSet run_samples(const Scenario& scenario, const RunConfig& config, const PlatformSpread& spread, int samples,
                      int jobs, results::ProgressMeter* progress) {
  const std::unique_ptr<results::JobFarm> farm = results::make_thread_farm(unsigned(std::max(1, jobs)));
  return *run_samples(scenario, config, spread, samples, *farm, progress);
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
