// validate.json / validate.md writers (schema in validate_report.h).
#include "allocsim/hw/validate_report.h"

#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "allocsim/results/atomic_file.h"
#include "allocsim/results/platform_io.h"

namespace allocsim::hw {
namespace {

boost::json::object run_json(const ValidateRun& run) {
  boost::json::object sim;
  sim["latent"] = run.sim.latent;
  sim["manifest"] = run.sim.manifest;
  sim["manifest_rate"] = run.sim.manifest_rate;
  sim["peak_bytes_in_use"] = run.sim.peak_bytes_in_use;
  sim["completed"] = run.sim.completed;
  sim["available"] = run.sim.available;
  boost::json::object o;
  o["policy"] = run.policy;
  o["guard"] = run.guard;
  o["trials"] = run.trials;
  o["aliased"] = run.aliased;
  o["corrupted"] = run.corrupted;
  o["corrupted_words"] = run.corrupted_words;
  o["peak_bytes_in_use"] = run.peak_bytes_in_use;
  o["host_ns_per_free"] = run.host_ns_per_free;
  o["frees"] = run.frees;
  o["wall_ns"] = run.wall_ns;
  o["error"] = run.error;
  o["sim"] = std::move(sim);
  return o;
}

std::string pct(int n, int d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", d > 0 ? 100.0 * n / d : 0.0);
  return buf;
}

}  // namespace

std::string validate_json(const ValidateReport& r) {
  boost::json::object o;
  o["device"] = r.device;
  o["scenario"] = r.scenario;
  o["command"] = r.command;
  o["semaphore"] = r.semaphore;
  o["platform_source"] = r.platform_source;
  o["platform"] = boost::json::parse(platform_to_json(r.platform));
  boost::json::array runs;
  for (const ValidateRun& run : r.runs) runs.push_back(run_json(run));
  o["runs"] = std::move(runs);
  return boost::json::serialize(o) + "\n";
}

std::string validate_markdown(const ValidateReport& r) {
  std::ostringstream md;
  md << "# allocsim-hw validate: " << r.scenario << "\n\n";
  md << "- device: " << r.device << "\n- command: `" << r.command << "`\n";
  md << "- platform profile: " << r.platform_source << "\n- compute semaphore: " << r.semaphore << "\n\n";
  md << "`aliased` / `corrupted`: trials with cross-allocation address reuse / with at least one pattern "
        "mismatch found on the device. `sim manifest rate`: fraction of simulated seeds with a manifest "
        "corruption; `hw rate`: corrupted / trials.\n\n";
  md << "| policy | guard | trials | aliased | corrupted | hw rate | sim latent | sim manifest rate | "
        "peak in use hw | peak in use sim | host ns/free | wall ms | note |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ValidateRun& run : r.runs) {
    char hostns[32], wall[32], simrate[32];
    std::snprintf(hostns, sizeof hostns, "%.0f", run.host_ns_per_free);
    std::snprintf(wall, sizeof wall, "%.1f", run.wall_ns / 1e6);
    std::snprintf(simrate, sizeof simrate, "%.0f%%", 100.0 * run.sim.manifest_rate);
    std::string note = run.error;
    if (!run.sim.available) note += (note.empty() ? "" : "; ") + std::string("no sim prediction");
    else if (run.peak_bytes_in_use != run.sim.peak_bytes_in_use) note += (note.empty() ? "" : "; ") + std::string("peak differs");
    md << "| " << run.policy << " | " << run.guard << " | " << run.trials << " | " << run.aliased << " | "
       << run.corrupted << " | " << pct(run.corrupted, run.trials) << " | " << run.sim.latent << " | " << simrate
       << " | " << run.peak_bytes_in_use << " | " << run.sim.peak_bytes_in_use << " | " << hostns << " | "
       << wall << " | " << note << " |\n";
  }
  return md.str();
}

void write_validate_files(const std::string& dir, const ValidateReport& r) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output folder " + dir + ": " + ec.message());
  const std::string json = validate_json(r), md = validate_markdown(r);
  const fs::path jpath = fs::path(dir) / "validate.json", mpath = fs::path(dir) / "validate.md";
  // Both files are rendered before either is written; each write is atomic. If the second write
  // fails, the first is removed again so the folder never holds one without the other.
  write_file_atomically(jpath.string(), json);
  try {
    write_file_atomically(mpath.string(), md);
  } catch (...) {
    fs::remove(jpath, ec);
    throw;
  }
}

}  // namespace allocsim::hw
