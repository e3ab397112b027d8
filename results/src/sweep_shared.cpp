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

void claim_dir(const fs::path& dir, const SweepSpec& spec, bool force) {
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
  // Leftovers of writes interrupted mid-way are never valid records.
  for (const auto& e : fs::directory_iterator(dir / "jobs", ec))
    if (const auto name = e.path().filename().string();
        name.find(".tmp.") != std::string::npos || name.find(".tmp-") != std::string::npos)
      fs::remove(e.path(), ec);
  if (!existing || mismatch || force) write_whole_file(dir / "sweep.json", manifest);
}

fs::path record_path(const fs::path& dir, std::size_t index) {
  return dir / "jobs" / (std::to_string(index) + ".json");
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
