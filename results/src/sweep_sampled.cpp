// The sampled sweep runner: skip the points DIR already records, run the rest one after another
// with each point's samples on every thread, record each point as it finishes, then write the
// outputs in point order (see sweep_sampled.h for the contract).
#include "allocsim/results/sweep_sampled.h"

#include <boost/json.hpp>
#include <iostream>
#include <optional>
#include <map>

#include "allocsim/core/seeds.h"
#include "allocsim/results/sweep_record.h"
#include "sweep_files.h"
#include "sweep_shared.h"

namespace allocsim::results {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

/// A finished point: what its record holds.
struct Point {
  SampleSummary summary;
  std::vector<RunResult> runs;  // sample order
};

std::string record_text(std::size_t index, const Point& p) {
  std::string out = "{\"index\":" + std::to_string(index) + ",\"samples\":" +
                    json::serialize(summary_to_json(p.summary)) + ",\"runs\":[";
  for (std::size_t i = 0; i < p.runs.size(); ++i) out += (i ? "," : "") + run_result_json(p.runs[i]);
  return out + "]}\n";
}

bool same_run(const RunResult& r, const SweepSpec& spec, const SweepJob& job, std::size_t sample) {
  return r.scenario == spec.scenario && r.policy == job.policy && r.guard == job.guard &&
         r.semaphore == job.semaphore && r.seed == seeds::nth(job.seed, sample);
}

/// A point's record, if `text` is one and belongs to this point of this sweep (anything else is
/// rerun).
std::optional<Point> parse_record(const std::string& text, const SweepJob& job, const SweepSpec& spec) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto& o = v.as_object();
  auto idx = o.find("index"), sum = o.find("samples"), runs = o.find("runs");
  if (idx == o.end() || sum == o.end() || runs == o.end() || !idx->value().is_int64() ||
      idx->value().as_int64() != static_cast<std::int64_t>(job.index) || !runs->value().is_array())
    return std::nullopt;
  auto summary = summary_from_json(sum->value());
  if (!summary || summary->scenario != spec.scenario || summary->policy != job.policy ||
      summary->guard != job.guard || summary->semaphore != job.semaphore || summary->first_seed != job.seed ||
      summary->samples != spec.samples || runs->value().as_array().size() != std::size_t(spec.samples))
    return std::nullopt;
  Point p{*summary, {}};
  for (const json::value& r : runs->value().as_array()) {
    auto run = run_result_from_json(json::serialize(r));
    if (!run || !same_run(*run, spec, job, p.runs.size())) return std::nullopt;
    p.runs.push_back(std::move(*run));
  }
  return p;
}

/// The point's samples with the sweep's identity, whatever the job function filled in (as
/// run_sweep does for a job's run), summarised.
Point finish_point(std::vector<SampleRun>&& runs, const SweepSpec& spec, const SweepJob& job) {
  SampleSet set = assemble_samples(std::move(runs));
  set.scenario = spec.scenario;
  set.policy = job.policy;
  set.guard = job.guard;
  set.semaphore = job.semaphore;
  set.first_seed = job.seed;
  for (std::size_t i = 0; i < set.runs.size(); ++i) {
    RunResult& r = set.runs[i];
    r.scenario = spec.scenario;
    r.policy = job.policy;
    r.guard = job.guard;
    r.semaphore = job.semaphore;
    r.seed = seeds::nth(job.seed, i);
  }
  Point p{summarize(set), {}};
  p.runs = std::move(set.runs);
  return p;
}

}  // namespace

SweepOutcome run_sampled_sweep(const SweepSpec& spec, const fs::path& dir, const SampleJobFn& run_sample,
                               const SweepOptions& options) {
  detail::validate_spec(spec);
  if (spec.samples < 1) throw SweepError("sweep: a sampled sweep needs --samples >= 1");
  const auto points = expand_jobs(spec);
  const std::size_t per_point = std::size_t(spec.samples);
  // Job j is sample j % samples of point j / samples.
  const JobHandler handler = [&](std::size_t j, const std::string&) {
    return sample_run_text(run_sample(points.at(j / per_point), int(j % per_point)));
  };
  detail::FarmChoice farm(options);
  SweepOutcome out;
  if (!farm->is_collector()) {
    farm->serve(handler);
    out.collector = out.outputs = false;
    return out;
  }
  detail::claim_dir(dir, spec, options);
  out.total = points.size();
  std::vector<std::optional<Point>> slots;
  const std::vector<std::size_t> missing = detail::reuse_records(
      points, slots, dir, [&](const std::string& text, const SweepJob& j) { return parse_record(text, j, spec); });
  out.reused = points.size() - missing.size();
  const std::vector<std::size_t> mine = detail::jobs_to_run(missing, options);

  ProgressMeter meter(points.size() * per_point, out.reused * per_point,
                      options.progress_out ? *options.progress_out : std::cerr, detail::pick_style(options.progress),
                      "sweep", "samples");
  FarmRun run;
  run.progress = &meter;
  for (std::size_t p : mine)
    for (std::size_t i = 0; i < per_point; ++i) run.todo.push_back(p * per_point + i);
  std::map<std::size_t, std::pair<std::size_t, std::vector<SampleRun>>> open;  // point -> (samples in, samples)
  detail::LazyJournal journal(dir, options);
  const std::vector<JobFailure> failed = farm->run(run, handler, [&](std::size_t j, std::string&& text) {
    const std::size_t p = j / per_point;
    auto& [in, runs] = open[p];
    if (runs.empty()) runs.resize(per_point);
    runs[j % per_point] = sample_run_from_text(text);
    if (++in < per_point) return;
    Point done = finish_point(std::move(runs), spec, points[p]);
    open.erase(p);
    journal.append(record_text(p, done));
    slots[p] = std::move(done);
    ++out.ran;
  });
  meter.finish();
  detail::throw_if_failed(failed, dir, [&](std::size_t j) {
    return detail::describe_job(points[j / per_point]) + ", sample " + std::to_string(j % per_point);
  });
  if (options.shard.active()) {
    out.outputs = false;
    return out;
  }

  for (auto& s : slots) {
    out.samples.push_back(std::move(s->summary));
    for (auto& r : s->runs) out.results.push_back(std::move(r));
  }
  detail::write_whole_file(dir / "results.csv", sweep_csv_text(out.results));
  detail::write_whole_file(dir / "results.json", detail::results_json_text(spec, out.results, out.samples));
  detail::write_whole_file(dir / "samples.csv", samples_csv_text(out.samples));
  return out;
}

}  // namespace allocsim::results
