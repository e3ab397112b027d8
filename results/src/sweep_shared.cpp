// What the two sweep runners share (see sweep_shared.h).
#include "sweep_shared.h"

#include <boost/json.hpp>
#include <set>

#include "allocsim/results/sweep_record.h"
#include "sweep_files.h"

namespace allocsim::results::detail {
namespace fs = std::filesystem;
namespace json = boost::json;

void validate_spec(const SweepSpec& spec) {
  auto no_dups = [](const auto& list, const char* what) {
    std::set<std::decay_t<decltype(list[0])>> seen;
    if (list.empty()) throw SweepError(std::string("sweep: no ") + what + " given");
    for (const auto& x : list)
      if (!seen.insert(x).second) throw SweepError(std::string("sweep: ") + what + " listed twice");
  };
  if (spec.scenario.empty()) throw SweepError("sweep: no scenario given");
  no_dups(spec.policies, "policies");
  no_dups(spec.guards, "guards");
  no_dups(spec.semaphores, "semaphore capacities");
  for (int s : spec.semaphores)
    if (s < 1) throw SweepError("sweep: semaphore capacity must be >= 1 (got " + std::to_string(s) + ")");
  if (spec.seeds < 1) throw SweepError("sweep: --seeds must be >= 1");
  if (spec.samples < 0) throw SweepError("sweep: --samples must be >= 1 (got " + std::to_string(spec.samples) + ")");
  // Sample i already runs with seed base + i: seeds on top would repeat those seeds, and a
  // point's samples share one program, which --seeds would reload per seed.
  if (spec.samples > 0 && spec.seeds != 1)
    throw SweepError("sweep: --samples replaces --seeds (sample i runs with the scenario's seed + i): give one of them");
}

void claim_dir(const fs::path& dir, const SweepSpec& spec, const SweepOptions& options) {
  const bool force = options.force;
  if (force && (options.shard.active() || options.merge))
    throw SweepError("sweep: --force cannot go with --shard or --merge (it would discard the other shards' records)");
  std::error_code ec;
  fs::create_directories(dir / "jobs", ec);
  if (ec) throw SweepError("sweep: cannot create " + (dir / "jobs").string() + ": " + ec.message());
  const std::string manifest = sweep_manifest_json(spec) + "\n";
  auto existing = read_whole_file(dir / "sweep.json");
  bool has_records = !fs::is_empty(dir / "jobs");
  bool mismatch = existing ? *existing != manifest : has_records;
  if (mismatch && !force)
    throw SweepError("sweep: " + dir.string() +
                     " holds a different sweep (other scenario, policies, guards, semaphores, seeds, samples, "
                     "platform or --set); use another --out, or --force to discard it");
  if (mismatch || force) {
    fs::remove_all(dir / "jobs", ec);
    fs::create_directories(dir / "jobs", ec);
    if (ec) throw SweepError("sweep: cannot reset " + (dir / "jobs").string() + ": " + ec.message());
  }
  if (!existing || mismatch || force) write_whole_file(dir / "sweep.json", manifest);
}

std::string results_json_text(const SweepSpec& spec, const std::vector<RunResult>& results,
                              const std::vector<SampleSummary>& samples) {
  std::string out = "{\"sweep\":" + sweep_manifest_json(spec) + ",\n\"runs\":[\n";
  for (std::size_t i = 0; i < results.size(); ++i)
    out += run_result_json(results[i]) + (i + 1 < results.size() ? ",\n" : "\n");
  out += "]";
  if (!samples.empty()) {
    out += ",\n\"samples\":[\n";
    for (std::size_t i = 0; i < samples.size(); ++i)
      out += json::serialize(summary_to_json(samples[i])) + (i + 1 < samples.size() ? ",\n" : "\n");
    out += "]";
  }
  return out + "}\n";
}

std::vector<std::size_t> jobs_to_run(const std::vector<std::size_t>& missing, const SweepOptions& options) {
  if (options.merge) {
    if (missing.empty()) return {};
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 10; ++i) list += (i ? ", " : "") + std::to_string(missing[i]);
    throw SweepError("sweep --merge: " + std::to_string(missing.size()) + " job(s) have no record yet (" + list +
                     (missing.size() > 10 ? ", ..." : "") + "): run their shards first");
  }
  std::vector<std::size_t> mine;
  for (std::size_t i : missing)
    if (i % std::size_t(options.shard.count) == std::size_t(options.shard.index)) mine.push_back(i);
  return mine;
}

std::string describe_job(const SweepJob& job) {
  return "policy " + job.policy + ", guard " + job.guard + ", semaphore " + std::to_string(job.semaphore) + ", seed " +
         std::to_string(job.seed);
}

void throw_if_failed(const std::vector<JobFailure>& failed, const fs::path& dir,
                     const std::function<std::string(std::size_t)>& describe) {
  if (failed.empty()) return;
  throw SweepJobsFailed("sweep: " + std::to_string(failed.size()) + " job(s) failed; every other job finished and is recorded in " +
                        (dir / "jobs").string() + " (re-run to resume):\n" +
                        format_failures(failed, describe));
}

ProgressMeter::Style pick_style(ProgressStyle s) {
  switch (s) {
    case ProgressStyle::Bar: return ProgressMeter::Style::Bar;
    case ProgressStyle::Lines: return ProgressMeter::Style::Lines;
    case ProgressStyle::Off: return ProgressMeter::Style::Off;
    case ProgressStyle::Auto: break;
  }
  return ProgressMeter::stderr_is_tty() ? ProgressMeter::Style::Bar : ProgressMeter::Style::Lines;
}

}  // namespace allocsim::results::detail
