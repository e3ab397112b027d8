// The sweep runner: expand the cross product, skip what DIR already records, run the rest on a
// pool of threads, record each job as it finishes, then write results.csv / results.json in job
// order (see sweep.h for the contract).
#include "allocsim/results/sweep.h"

#include <boost/json.hpp>
#include <optional>

#include "allocsim/core/seeds.h"
#include "allocsim/results/progress.h"
#include "allocsim/results/sweep_record.h"
#include "sweep_files.h"
#include "sweep_shared.h"

namespace allocsim::results {
namespace fs = std::filesystem;
namespace json = boost::json;

std::vector<SweepJob> expand_jobs(const SweepSpec& spec) {
  std::vector<SweepJob> jobs;
  for (const auto& p : spec.policies)
    for (const auto& g : spec.guards)
      for (int sem : spec.semaphores)
        for (int s = 0; s < spec.seeds; ++s)
          jobs.push_back({jobs.size(), p, g, sem, seeds::nth(spec.base_seed, std::uint64_t(s))});
  return jobs;
}

SweepShard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 7 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  const bool ok = slash != std::string::npos && digits(text.substr(0, slash)) && digits(text.substr(slash + 1));
  const long index = ok ? std::stol(text.substr(0, slash)) : 0, count = ok ? std::stol(text.substr(slash + 1)) : 0;
  if (!ok || count < 1 || index >= count)
    throw SweepError("--shard: expected INDEX/COUNT with 0 <= INDEX < COUNT (e.g. 0/4), got '" + text + "'");
  return {int(index), int(count)};
}

std::string sweep_manifest_json(const SweepSpec& spec) {
  json::object o;
  o["format"] = "allocsim-sweep/1";
  o["scenario"] = spec.scenario;
  json::array pol, gua, sem, set;
  for (const auto& p : spec.policies) pol.emplace_back(p);
  for (const auto& g : spec.guards) gua.emplace_back(g);
  for (int s : spec.semaphores) sem.emplace_back(s);
  for (const auto& [k, v] : spec.sets) set.emplace_back(json::array{json::value(k), json::value(v)});
  o["policies"] = std::move(pol);
  o["guards"] = std::move(gua);
  o["semaphores"] = std::move(sem);
  o["seeds"] = spec.seeds;
  o["base_seed"] = spec.base_seed;
  o["set"] = std::move(set);
  if (spec.executions > 0) o["executions"] = spec.executions;  // absent = unknown (older sweeps)
  // Absent unless given, so an unsampled sweep without --platform keeps its manifest (and resumes).
  if (!spec.platform.empty()) o["platform"] = spec.platform;
  if (spec.samples > 0) o["samples"] = spec.samples;
  return json::serialize(o);
}

namespace {

std::string record_text(std::size_t index, const RunResult& r) {
  return "{\"index\":" + std::to_string(index) + ",\"result\":" + run_result_json(r) + "}\n";
}

/// A job's record, if `text` is one and belongs to this job (anything else is rerun).
std::optional<RunResult> parse_record(const std::string& text, const SweepJob& job, const std::string& scenario) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto& o = v.as_object();
  auto idx = o.find("index");
  auto res = o.find("result");
  if (idx == o.end() || res == o.end() || !idx->value().is_int64() ||
      idx->value().as_int64() != static_cast<std::int64_t>(job.index))
    return std::nullopt;
  auto r = run_result_from_value(res->value());
  if (!r || r->scenario != scenario || r->policy != job.policy || r->guard != job.guard ||
      r->semaphore != job.semaphore || r->seed != job.seed)
    return std::nullopt;
  return r;
}


}  // namespace

JobHandler sweep_job_handler(const SweepSpec& spec, const std::vector<SweepJob>& jobs, const JobFn& run_job) {
  return [&spec, &jobs, run_job](std::size_t index, const std::string&) {
    const SweepJob& job = jobs.at(index);
    RunResult r = run_job(job);
    // The job's identity is the sweep's, whatever the job function filled in.
    r.scenario = spec.scenario;
    r.policy = job.policy;
    r.guard = job.guard;
    r.semaphore = job.semaphore;
    r.seed = job.seed;
    return record_text(job.index, r);
  };
}

SweepOutcome run_sweep(const SweepSpec& spec, const fs::path& dir, const JobFn& run_job,
                       const SweepOptions& options) {
  detail::validate_spec(spec);
  if (spec.samples > 0) throw SweepError("sweep: a sampled sweep (--samples) runs through run_sampled_sweep");
  const auto jobs = expand_jobs(spec);
  const JobHandler handler = sweep_job_handler(spec, jobs, run_job);
  SweepOutcome out;
  std::vector<std::optional<RunResult>> slots;
  const bool outputs = detail::run_recorded_jobs(
      spec, dir, options, jobs, handler,
      [&](const std::string& text, const SweepJob& j) { return parse_record(text, j, spec.scenario); },
      [&](std::size_t i) { return detail::describe_job(jobs.at(i)); }, "jobs", slots, out);
  if (!outputs) return out;

  for (auto& s : slots) out.results.push_back(std::move(*s));
  detail::write_whole_file(dir / "results.csv", sweep_csv_text(out.results));
  detail::write_whole_file(dir / "results.json", detail::results_json_text(spec, out.results));
  return out;
}

}  // namespace allocsim::results
