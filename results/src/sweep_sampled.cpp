// The sampled sweep runner: every sample of every point is a job, recorded on its own as it
// reaches the collector; the points are summarised once all their samples are in, then the
// outputs are written in point order (see sweep_sampled.h for the contract).
//
// Why a record per sample and not per point: a point of a real profile with thousands of samples
// is hours of work; recorded per sample, an interrupted run loses at most the samples in flight,
// and a job array's shards can split one point.
#include "allocsim/results/sweep_sampled.h"

#include <boost/json.hpp>
#include <optional>

#include "allocsim/core/seeds.h"
#include "allocsim/results/sweep_record.h"
#include "sweep_files.h"
#include "sweep_shared.h"

namespace allocsim::results {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

std::string record_text(std::size_t index, const SampleRun& s) {
  return "{\"index\":" + std::to_string(index) + ",\"sample\":" + sample_run_text(s) + "}\n";
}

/// Sample job j's record, if `text` is one and belongs to it (`job`: the sample's identity, seed
/// included); anything else is rerun.
std::optional<SampleRun> parse_record(const std::string& text, const SweepJob& job, const std::string& scenario) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  const json::object* o = ec ? nullptr : v.if_object();
  const json::value* idx = o ? o->if_contains("index") : nullptr;
  const json::value* sample = o ? o->if_contains("sample") : nullptr;
  if (!idx || !sample || !idx->is_int64() || idx->as_int64() != static_cast<std::int64_t>(job.index)) return std::nullopt;
  try {
    SampleRun s = sample_run_from_json(*sample);
    const RunResult& r = s.result;
    if (r.scenario != scenario || r.policy != job.policy || r.guard != job.guard || r.semaphore != job.semaphore ||
        r.seed != job.seed)
      return std::nullopt;
    return s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Every sample as a job: job p * samples + i is sample i of point p, its seed the sample's.
std::vector<SweepJob> sample_jobs(const std::vector<SweepJob>& points, std::size_t per_point) {
  std::vector<SweepJob> jobs;
  for (const SweepJob& p : points)
    for (std::size_t i = 0; i < per_point; ++i) {
      SweepJob j = p;
      j.index = jobs.size();
      j.seed = seeds::nth(p.seed, i);
      jobs.push_back(std::move(j));
    }
  return jobs;
}

/// A point's samples summarised, with the sweep's identity (the records carry it already).
SampleSummary summarize_point(std::vector<SampleRun>&& runs, const SweepSpec& spec, const SweepJob& point,
                              std::vector<RunResult>& results) {
  SampleSet set = assemble_samples(std::move(runs));
  set.scenario = spec.scenario;
  set.policy = point.policy;
  set.guard = point.guard;
  set.semaphore = point.semaphore;
  set.first_seed = point.seed;
  SampleSummary summary = summarize(set);
  for (RunResult& r : set.runs) results.push_back(std::move(r));
  return summary;
}

}  // namespace

SweepOutcome run_sampled_sweep(const SweepSpec& spec, const fs::path& dir, const SampleJobFn& run_sample,
                               const SweepOptions& options) {
  detail::validate_spec(spec);
  if (spec.samples < 1) throw SweepError("sweep: a sampled sweep needs --samples >= 1");
  const auto points = expand_jobs(spec);
  const std::size_t per_point = std::size_t(spec.samples);
  const std::vector<SweepJob> jobs = sample_jobs(points, per_point);
  const JobHandler handler = [&](std::size_t j, const std::string&) {
    SampleRun s = run_sample(points.at(j / per_point), int(j % per_point));
    // The sample's identity is the sweep's, whatever the job function filled in.
    s.result.scenario = spec.scenario;
    s.result.policy = jobs[j].policy;
    s.result.guard = jobs[j].guard;
    s.result.semaphore = jobs[j].semaphore;
    s.result.seed = jobs[j].seed;
    return record_text(j, s);
  };
  SweepOutcome out;
  std::vector<std::optional<SampleRun>> slots;
  const bool outputs = detail::run_recorded_jobs(
      spec, dir, options, jobs, handler,
      [&](const std::string& text, const SweepJob& j) { return parse_record(text, j, spec.scenario); },
      [&](std::size_t j) { return detail::describe_job(jobs[j]) + " (sample " + std::to_string(j % per_point) + ")"; },
      "samples", slots, out);
  if (!outputs) return out;

  for (const SweepJob& p : points) {
    std::vector<SampleRun> runs;
    for (std::size_t i = 0; i < per_point; ++i) runs.push_back(std::move(*slots[p.index * per_point + i]));
    out.samples.push_back(summarize_point(std::move(runs), spec, p, out.results));
  }
  detail::write_whole_file(dir / "results.csv", sweep_csv_text(out.results));
  detail::write_whole_file(dir / "results.json", detail::results_json_text(spec, out.results, out.samples));
  detail::write_whole_file(dir / "samples.csv", samples_csv_text(out.samples));
  return out;
}

}  // namespace allocsim::results
