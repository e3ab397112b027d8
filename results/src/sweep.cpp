// The sweep runner: expand the cross product, skip what DIR already records, run the rest on a
// pool of threads, record each job as it finishes, then write results.csv / results.json in job
// order (see sweep.h for the contract).
#include "allocsim/results/sweep.h"

#include <atomic>
#include <boost/json.hpp>
#include <exception>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

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

/// A recorded job, if its record exists, parses, and belongs to this job (anything else is rerun).
std::optional<RunResult> load_record(const fs::path& dir, const SweepJob& job, const std::string& scenario) {
  auto text = detail::read_whole_file(detail::record_path(dir, job.index));
  if (!text) return std::nullopt;
  boost::system::error_code ec;
  json::value v = json::parse(*text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto& o = v.as_object();
  auto idx = o.find("index");
  auto res = o.find("result");
  if (idx == o.end() || res == o.end() || !idx->value().is_int64() ||
      idx->value().as_int64() != static_cast<std::int64_t>(job.index))
    return std::nullopt;
  auto r = run_result_from_json(json::serialize(res->value()));
  if (!r || r->scenario != scenario || r->policy != job.policy || r->guard != job.guard ||
      r->semaphore != job.semaphore || r->seed != job.seed)
    return std::nullopt;
  return r;
}

}  // namespace

SweepOutcome run_sweep(const SweepSpec& spec, const fs::path& dir, const JobFn& run_job,
                       const SweepOptions& options) {
  detail::validate_spec(spec);
  if (spec.samples > 0) throw SweepError("sweep: a sampled sweep (--samples) runs through run_sampled_sweep");
  detail::claim_dir(dir, spec, options.force);
  const auto jobs = expand_jobs(spec);

  SweepOutcome out;
  out.total = jobs.size();
  std::vector<std::optional<RunResult>> slots;
  const std::vector<std::size_t> todo =
      detail::reuse_records(jobs, slots, [&](const SweepJob& j) { return load_record(dir, j, spec.scenario); });
  out.reused = jobs.size() - todo.size();

  unsigned threads = detail::thread_count(options);
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(todo.size(), 1)));
  ProgressMeter meter(jobs.size(), out.reused, options.progress_out ? *options.progress_out : std::cerr,
                      detail::pick_style(options.progress));

  std::atomic<std::size_t> next{0};
  std::atomic<bool> abort{false};
  std::mutex error_mu;
  std::exception_ptr first_error;
  auto worker = [&] {
    while (!abort) {
      std::size_t k = next++;
      if (k >= todo.size()) break;
      const SweepJob& job = jobs[todo[k]];
      try {
        RunResult r = run_job(job);
        // The job's identity is the sweep's, whatever the job function filled in.
        r.scenario = spec.scenario;
        r.policy = job.policy;
        r.guard = job.guard;
        r.semaphore = job.semaphore;
        r.seed = job.seed;
        detail::write_whole_file(detail::record_path(dir, job.index), record_text(job.index, r));
        slots[job.index] = std::move(r);  // distinct element per job: no lock needed
        meter.tick();
      } catch (...) {
        std::lock_guard lock(error_mu);
        if (!first_error) first_error = std::current_exception();
        abort = true;
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  }
  if (first_error) std::rethrow_exception(first_error);
  meter.finish();

  for (auto& s : slots) out.results.push_back(std::move(*s));
  out.ran = todo.size();
  detail::write_whole_file(dir / "results.csv", sweep_csv_text(out.results));
  detail::write_whole_file(dir / "results.json", detail::results_json_text(spec, out.results));
  return out;
}

}  // namespace allocsim::results
