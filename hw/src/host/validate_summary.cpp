// validate_summary_markdown: reads a session's validate.json files and computes its summary (see
// the header for why it is generated).
#include "allocsim/hw/validate_summary.h"

#include "allocsim/core/platform_spread.h"
#include "allocsim/hw/host_calls.h"
#include "validate_json_reading.h"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace allocsim::hw {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// Rate differences beyond this many percentage points are marked in the tables: the tolerance
// issue 17 sets for a whole scenario x semaphore, and the one it sets for each execution.
constexpr double kMarkedDiffPp = 10.0;
constexpr double kMarkedExecutionDiffPp = 20.0;
// The simulator's host cost per free agrees with the hardware's when within this fraction of it
// (issue 15, point 5).
constexpr double kHostCostTolerance = 0.25;

/// One simulator prediction of a run: validate.json's "sim", or "sim_host_paced".
struct Prediction {
  int runs = 0;
  std::uint64_t manifest_executions = 0;
  double rate = 0;
  std::vector<int> by_execution;  // simulated runs with a manifest corruption, per execution
  bool has_range = false;         // the runs' peak range was kept (older files: the first run's peak)
  std::uint64_t peak = 0, peak_min = 0, peak_max = 0;
  double host_busy_ns = 0;
  std::vector<double> host_pace;  // the pace quantiles it drew from (host-paced: measured on the GPU)
  bool available = true;
};

struct Run {
  std::string scenario, policy, guard;
  int semaphore = 0, trials = 0, executions = 0, aliased = 0, corrupted = 0;
  std::uint64_t corrupted_executions = 0, peak_hw = 0, peak_hw_min = 0, latent = 0;
  double hw_rate = 0, host_ns_per_free = 0, sim_host_ns_per_free = 0, host_busy_ns = 0;
  std::array<CallTime, std::size_t(HostCall::kCount)> host_calls{};
  std::uint64_t frees = 0;
  std::vector<int> hw_by_execution;  // trials with a corruption, per execution
  Prediction sim;                    // from the calibration alone
  std::optional<Prediction> paced;   // with the host pace measured in these trials
  std::optional<Prediction> warmup_paced;  // ... in the uncounted trials run before them (--warmup-trials)
  std::optional<Prediction> repredicted;   // allocsim-hw repredict's (repredict.h), from `repredicted_from`
  std::string repredicted_from;            // "<pace> pace, <release> release"
  // sim_pace_band's ends (PaceBand): the prediction at the calibration's p0 and p99 host pace over
  // its median, these factors; they bracket `repredicted` where repredict wrote them, else `sim`.
  std::optional<Prediction> band_low, band_high;
  double band_low_factor = 1, band_high_factor = 1;
  bool band_around_repredicted = false;
  int warmup_trials = 0;
  // The validating process timed the semaphore release (process_release): the prediction charging
  // that and the one charging the calibration's. Reported apart ("sim_process_release", `sim` the
  // calibration's), or, in the one pass that applied it ("applied": true), `sim` this process's and
  // "sim_calibration_release" the calibration's.
  std::optional<Prediction> release_here, release_calibrated;
  bool release_applied = false;
  std::vector<double> release_measured, release_calibration;  // process_release's spreads (kSpreadLevels)

  /// Per execution: the hardware's corrupted-trial fraction minus the prediction's probability.
  std::vector<double> execution_diffs(const Prediction& p) const {
    std::vector<double> d;
    for (std::size_t e = 0; e < hw_by_execution.size() && e < p.by_execution.size(); ++e)
      d.push_back((trials ? double(hw_by_execution[e]) / trials : 0) -
                  (p.runs ? double(p.by_execution[e]) / p.runs : 0));
    return d;
  }
  double largest_execution_diff_pp(const Prediction& p) const {
    double worst = 0;
    for (double d : execution_diffs(p))
      if (std::fabs(d) > std::fabs(worst)) worst = d;
    return 100 * worst;
  }
  double largest_execution_diff_pp() const { return largest_execution_diff_pp(sim); }
  /// Brier score of the prediction's per-execution probabilities against each trial's outcome.
  double brier(const Prediction& p) const {
    double sum = 0, n = 0;
    for (std::size_t e = 0; e < hw_by_execution.size() && e < p.by_execution.size(); ++e) {
      const double q = p.runs ? double(p.by_execution[e]) / p.runs : 0, k = hw_by_execution[e];
      sum += k * (1 - q) * (1 - q) + (trials - k) * q * q;
      n += trials;
    }
    return n > 0 ? sum / n : 0;
  }
  double brier() const { return brier(sim); }
  std::string error;
  // Trials pooled over separate validating processes (read_session: <point>/process-<i>/): how
  // many, and each one's own largest per-execution difference against the calibrated prediction.
  int processes = 1;
  std::vector<double> process_worst_pp;
  // Per process (one entry unpooled; none where the file lacks it): the host-pace workload's pace
  // there against the calibrating process's (validate.json's process_pace), and the median of its
  // trials' pace on this program against the simulator's (host_cadence_by_trial over the calibrated
  // prediction's host_cadence_ns).
  std::vector<double> workload_pace_by_process, trial_pace_by_process;
  // The calibrated prediction's pace was scaled by the validating process's (process_pace without
  // "applied": false, the one version that applied it).
  bool pace_scaled = false;

  double diff_pp(const Prediction& p) const { return 100.0 * (hw_rate - p.rate); }
  double diff_pp() const { return diff_pp(sim); }
  bool sim_racy() const { return latent > 0 || sim.manifest_executions > 0; }
  std::string combo() const { return policy + " + " + guard; }
};

struct Session {
  std::string device;
  json::object platform;
  std::vector<Run> runs;  // by scenario, semaphore, then the file's order (registry order)
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string mib(std::uint64_t bytes) { return fmt("%.2f", double(bytes) / (1 << 20)); }
std::string pct(double rate) { return fmt("%.1f%%", 100.0 * rate); }
std::string pp(double v, double marked_beyond = kMarkedDiffPp) {
  std::string s = fmt("%+.1f pp", v);
  return std::fabs(v) > marked_beyond ? "**" + s + "**" : s;
}

using validate_json_reading::field;
std::uint64_t u64(const json::object& o, const char* key, const fs::path& file) {
  return json::value_to<std::uint64_t>(field(o, key, file));
}
double num(const json::object& o, const char* key, const fs::path& file) {
  return json::value_to<double>(field(o, key, file));
}
std::string str(const json::object& o, const char* key, const fs::path& file) {
  return json::value_to<std::string>(field(o, key, file));
}

Prediction read_prediction(const json::object& sim, const fs::path& file) {
  Prediction p;
  p.runs = int(u64(sim, "runs", file));
  p.manifest_executions = u64(sim, "manifest_executions", file);
  p.rate = num(sim, "manifest_rate", file);
  p.peak = u64(sim, "peak_bytes_in_use", file);
  // The simulated runs' range (files before it was kept: the first run's peak alone).
  p.has_range = sim.contains("peak_bytes_in_use_min");
  p.peak_min = p.has_range ? u64(sim, "peak_bytes_in_use_min", file) : p.peak;
  p.peak_max = p.has_range ? u64(sim, "peak_bytes_in_use_max", file) : p.peak;
  for (const json::value& x : field(sim, "manifest_by_execution", file).as_array()) p.by_execution.push_back(json::value_to<int>(x));
  if (sim.contains("host_busy_ns")) p.host_busy_ns = num(sim, "host_busy_ns", file);
  if (sim.contains("host_pace"))
    for (const json::value& x : field(sim, "host_pace", file).as_array()) p.host_pace.push_back(json::value_to<double>(x));
  p.available = json::value_to<bool>(field(sim, "available", file));
  return p;
}

void read_file(const fs::path& file, Session& s) {
  const json::value root = validate_json_reading::read_object(file);
  const json::object& top = root.get_object();
  if (s.device.empty()) s.device = str(top, "device", file);
  if (s.platform.empty()) s.platform = field(top, "platform", file).as_object();
  const std::string scenario = str(top, "scenario", file);
  const int semaphore = int(u64(top, "semaphore", file));
  const json::value* process_pace = top.if_contains("process_pace");
  const json::value* applied = process_pace ? process_pace->as_object().if_contains("applied") : nullptr;
  const bool pace_scaled = process_pace && (!applied || json::value_to<bool>(*applied));
  std::vector<double> release_measured, release_calibration;
  bool release_applied = false;
  if (const json::value* pr = top.if_contains("process_release")) {
    release_applied = json::value_to<bool>(field(pr->as_object(), "applied", file));
    release_measured = validate_json_reading::numbers(field(pr->as_object(), "measured", file));
    release_calibration = validate_json_reading::numbers(field(pr->as_object(), "calibration", file));
  }
  for (const json::value& v : field(top, "runs", file).as_array()) {
    const json::object& o = v.as_object();
    const json::object& sim = field(o, "sim", file).as_object();
    Run r;
    r.scenario = scenario;
    r.semaphore = semaphore;
    r.policy = str(o, "policy", file);
    r.guard = str(o, "guard", file);
    r.trials = int(u64(o, "trials", file));
    r.executions = int(u64(o, "executions", file));
    r.aliased = int(u64(o, "aliased", file));
    r.corrupted = int(u64(o, "corrupted", file));
    r.corrupted_executions = u64(o, "corrupted_executions", file);
    r.hw_rate = num(o, "corrupted_rate", file);
    r.peak_hw = u64(o, "peak_bytes_in_use", file);
    r.peak_hw_min = u64(o, "peak_bytes_in_use_min", file);
    r.host_ns_per_free = num(o, "host_ns_per_free", file);
    r.frees = u64(o, "frees", file);
    r.pace_scaled = pace_scaled;
    if (process_pace) r.workload_pace_by_process.push_back(num(process_pace->as_object(), "pace", file));
    if (const json::value* cadences = o.if_contains("host_cadence_by_trial"); cadences && sim.contains("host_cadence_ns")) {
      std::vector<double> pace = validate_json_reading::numbers(*cadences);
      const double sim_cadence = num(sim, "host_cadence_ns", file);
      for (double& c : pace) c /= sim_cadence;
      std::sort(pace.begin(), pace.end());
      if (!pace.empty() && sim_cadence > 0) r.trial_pace_by_process.push_back(pace[pace.size() / 2]);
    }
    const json::object& calls = field(o, "host_calls", file).as_object();
    for (std::size_t i = 0; i < kHostCalls.size(); ++i) {
      const json::object& c = field(calls, kHostCalls[i].name, file).as_object();
      r.host_calls[i].calls = u64(c, "calls", file);
      r.host_calls[i].ns = TimeNs(num(c, "ns", file));
    }
    r.error = str(o, "error", file);
    r.latent = u64(sim, "latent", file);
    r.sim_host_ns_per_free = num(sim, "host_ns_per_free", file);
    for (const json::value& x : field(o, "corrupted_by_execution", file).as_array()) r.hw_by_execution.push_back(json::value_to<int>(x));
    r.sim = read_prediction(sim, file);
    const char* other = release_applied ? "sim_calibration_release" : "sim_process_release";
    if (o.contains(other)) {
      const Prediction p = read_prediction(field(o, other, file).as_object(), file);
      r.release_here = release_applied ? r.sim : p;
      r.release_calibrated = release_applied ? p : r.sim;
      r.release_applied = release_applied;
      r.release_measured = release_measured;
      r.release_calibration = release_calibration;
    }
    if (o.contains("sim_repredicted")) {
      r.repredicted = read_prediction(field(o, "sim_repredicted", file).as_object(), file);
      const json::object& how = field(top, "repredicted", file).as_object();
      const json::value* blocks = how.if_contains("blocks");
      const std::int64_t block_trials = blocks ? blocks->to_number<std::int64_t>() : 0;
      r.repredicted_from = str(how, "pace", file) + " pace, " + str(how, "release", file) + " release" +
                           (json::value_to<bool>(field(how, "release_tail", file)) ? "" : " (release capped at p99)") +
                           (block_trials > 0 ? ", in blocks of " + std::to_string(block_trials) + " trials" : "");
      if (const json::value* zeroed = how.if_contains("zeroed"))
        for (const json::value& name : zeroed->as_array())
          r.repredicted_from += ", " + json::value_to<std::string>(name) + " at 0";
    }
    if (const json::value* band = o.if_contains("sim_pace_band")) {
      const json::object& b = band->as_object();
      r.band_low = read_prediction(field(b, "low", file).as_object(), file);
      r.band_high = read_prediction(field(b, "high", file).as_object(), file);
      r.band_low_factor = num(b, "low_factor", file);
      r.band_high_factor = num(b, "high_factor", file);
      const json::value* how = top.if_contains("repredicted");
      const json::value* around = how ? how->as_object().if_contains("pace_band") : nullptr;
      r.band_around_repredicted = around && json::value_to<bool>(*around);
      if (r.band_around_repredicted && !o.contains("sim_repredicted"))
        throw std::runtime_error(file.string() + ": a pace band around a re-prediction, but no sim_repredicted");
    }
    if (o.contains("sim_warmup_paced")) {
      r.warmup_paced = read_prediction(field(o, "sim_warmup_paced", file).as_object(), file);
      r.warmup_trials = int(u64(field(o, "warmup", file).as_object(), "trials", file));
    }
    if (o.contains("sim_host_paced")) {
      r.paced = read_prediction(field(o, "sim_host_paced", file).as_object(), file);
      r.host_busy_ns = num(o, "host_busy_ns", file);
    }
    s.runs.push_back(std::move(r));
  }
}


/// Adds `p`'s simulated runs to `into`'s: the prediction for the processes pooled is the mixture of
/// each one's (each drew from what its own process measured). The pace quantiles stay the first
/// process's; the peak range spans both.
void pool_prediction(Prediction& into, const Prediction& p, int executions) {
  into.runs += p.runs;
  into.manifest_executions += p.manifest_executions;
  into.rate = into.runs > 0 ? double(into.manifest_executions) / (double(into.runs) * executions) : 0;
  for (std::size_t e = 0; e < into.by_execution.size() && e < p.by_execution.size(); ++e)
    into.by_execution[e] += p.by_execution[e];
  into.peak = std::max(into.peak, p.peak);
  into.peak_min = std::min(into.peak_min, p.peak_min);
  into.peak_max = std::max(into.peak_max, p.peak_max);
  into.available = into.available && p.available;
}

void pool_optional(std::optional<Prediction>& into, const std::optional<Prediction>& p, int executions) {
  if (into && p) pool_prediction(*into, *p, executions);
  else into.reset();  // a prediction some processes lack is not one of the pooled trials
}

/// Adds one more process's run of the same combination to `into`: the hardware's counts summed,
/// its peak range widened. The calibrated prediction must be the same in every process (one
/// calibration, the same seeds and runs): it is kept, not summed. `file`: for the error.
void pool_run(Run& into, const Run& r, const fs::path& file) {
  if (r.executions != into.executions || r.sim.runs != into.sim.runs || r.sim.by_execution != into.sim.by_execution)
    throw std::runtime_error(file.string() + ": its calibrated prediction of " + r.combo() +
                             " differs from the other processes' of this point (not one calibration and seed?)");
  if (into.process_worst_pp.empty()) into.process_worst_pp.push_back(into.largest_execution_diff_pp());
  into.process_worst_pp.push_back(r.largest_execution_diff_pp());
  ++into.processes;
  into.trials += r.trials;
  into.aliased += r.aliased;
  into.corrupted += r.corrupted;
  into.corrupted_executions += r.corrupted_executions;
  for (std::size_t e = 0; e < into.hw_by_execution.size() && e < r.hw_by_execution.size(); ++e)
    into.hw_by_execution[e] += r.hw_by_execution[e];
  into.hw_rate = into.trials > 0 ? double(into.corrupted_executions) / (double(into.trials) * into.executions) : 0;
  into.peak_hw = std::max(into.peak_hw, r.peak_hw);
  into.peak_hw_min = std::min(into.peak_hw_min, r.peak_hw_min);
  for (std::size_t i = 0; i < into.host_calls.size(); ++i) {
    into.host_calls[i].calls += r.host_calls[i].calls;
    into.host_calls[i].ns += r.host_calls[i].ns;
  }
  pool_optional(into.paced, r.paced, into.executions);
  pool_optional(into.warmup_paced, r.warmup_paced, into.executions);
  pool_optional(into.repredicted, r.repredicted, into.executions);
  pool_optional(into.band_low, r.band_low, into.executions);
  pool_optional(into.band_high, r.band_high, into.executions);
  pool_optional(into.release_here, r.release_here, into.executions);
  pool_optional(into.release_calibrated, r.release_calibrated, into.executions);
  into.pace_scaled = into.pace_scaled || r.pace_scaled;
  into.workload_pace_by_process.insert(into.workload_pace_by_process.end(), r.workload_pace_by_process.begin(),
                                       r.workload_pace_by_process.end());
  into.trial_pace_by_process.insert(into.trial_pace_by_process.end(), r.trial_pace_by_process.begin(),
                                    r.trial_pace_by_process.end());
  if (!r.error.empty()) into.error += (into.error.empty() ? "" : "; ") + r.error;
}

/// The point a validate.json belongs to, from its folders: <scenario>/semaphore-<n>/validate.json,
/// or <scenario>/semaphore-<n>/process-<i>/validate.json for a point whose trials ran in several
/// processes (hw/scripts/h200_processes.sh); `pooled` says which.
struct PointOfFile {
  std::string scenario;
  int semaphore = 0;
  bool pooled = false;
};
PointOfFile point_of(const fs::path& file) {
  fs::path dir = file.parent_path();
  PointOfFile p;
  if (dir.filename().string().rfind("process-", 0) == 0 &&
      dir.parent_path().filename().string().rfind("semaphore-", 0) == 0) {
    p.pooled = true;
    dir = dir.parent_path();
  }
  const std::string sem_dir = dir.filename().string();
  p.scenario = dir.parent_path().filename().string();
  if (sem_dir.rfind("semaphore-", 0) == 0) p.semaphore = std::atoi(sem_dir.c_str() + 10);
  return p;
}

Session read_session(const std::string& dir) {
  struct Found {
    std::string scenario;
    int semaphore;
    bool pooled;
    int process;  // process-<i>'s i, so process-10 comes after process-9
    fs::path file;
    bool operator<(const Found& o) const {
      return std::tie(scenario, semaphore, pooled, process, file) <
             std::tie(o.scenario, o.semaphore, o.pooled, o.process, o.file);
    }
  };
  std::vector<Found> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().filename() != "validate.json") continue;
    const PointOfFile p = point_of(it->path());
    const int process = p.pooled ? std::atoi(it->path().parent_path().filename().string().c_str() + 8) : 0;
    files.push_back({p.scenario, p.semaphore, p.pooled, process, it->path()});
  }
  if (ec) throw std::runtime_error(dir + ": " + ec.message());
  if (files.empty()) throw std::runtime_error(dir + ": no <scenario>/semaphore-<n>/validate.json below it");
  std::sort(files.begin(), files.end());  // scenario name, then semaphore as a number, then process
  Session s;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const Found& f = files[i];
    const bool first_of_pool = !f.pooled || i == 0 || !files[i - 1].pooled ||
                               files[i - 1].scenario != f.scenario || files[i - 1].semaphore != f.semaphore;
    if (first_of_pool) {
      read_file(f.file, s);
      continue;
    }
    // Another process of a pooled point: its runs join those of the same combination read so far.
    Session one;
    one.device = s.device;
    one.platform = s.platform;
    read_file(f.file, one);
    for (const Run& r : one.runs) {
      auto same = std::find_if(s.runs.begin(), s.runs.end(), [&](const Run& x) {
        return x.scenario == r.scenario && x.semaphore == r.semaphore && x.policy == r.policy && x.guard == r.guard;
      });
      if (same == s.runs.end())
        throw std::runtime_error(f.file.string() + ": " + r.combo() + " is in no other process of this point");
      pool_run(*same, r, f.file);
    }
  }
  return s;
}

using Groups = std::map<std::pair<std::string, int>, std::vector<const Run*>>;

/// The points predicted with a measured host pace (`which`: each point's runs that have it) beside
/// the calibrated prediction, as a table and a sentence counting the points within bounds of each;
/// `label` names the pace in that sentence.
void paced_table(std::ostream& o, const Groups& groups, std::optional<Prediction> Run::*which,
                 const std::string& label) {
  o << "| scenario | semaphore | host pace p10 / p50 / p90 | hw rate, all | sim rate, all | diff | largest "
       "per-execution diff | Brier | calibrated: pace p50 | calibrated: largest per-execution diff |\n"
       "|---|---|---|---|---|---|---|---|---|---|\n";
  auto mid = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  int points = 0, overall_ok = 0, executions_ok = 0, calibrated_overall_ok = 0, calibrated_executions_ok = 0;
  for (const auto& [key, runs] : groups) {
    double hw_execs = 0, sim_execs = 0, cal_execs = 0, total = 0, brier = 0, brier_n = 0, worst = 0, cal_worst = 0;
    std::vector<double> pace_p10, pace_p50, pace_p90, calibrated_p50;
    for (const Run* r : runs) {
      const std::optional<Prediction>& paced = r->*which;
      if (!paced) continue;
      const double n = double(r->trials) * double(r->executions);
      hw_execs += double(r->corrupted_executions);
      sim_execs += paced->rate * n;
      cal_execs += r->sim.rate * n;
      total += n;
      brier += r->brier(*paced) * r->trials, brier_n += r->trials;
      if (std::fabs(r->largest_execution_diff_pp(*paced)) > std::fabs(worst)) worst = r->largest_execution_diff_pp(*paced);
      if (std::fabs(r->largest_execution_diff_pp()) > std::fabs(cal_worst)) cal_worst = r->largest_execution_diff_pp();
      if (r->sim.host_pace.size() == kSpreadLevels.size()) calibrated_p50.push_back(PlatformSpread::at(r->sim.host_pace, 0.50));
      if (paced->host_pace.size() == kSpreadLevels.size()) {
        pace_p10.push_back(PlatformSpread::at(paced->host_pace, 0.10));
        pace_p50.push_back(PlatformSpread::at(paced->host_pace, 0.50));
        pace_p90.push_back(PlatformSpread::at(paced->host_pace, 0.90));
      }
    }
    if (brier_n == 0) continue;  // no run of this point has the prediction
    const double hw_rate = total > 0 ? hw_execs / total : 0, sim_rate = total > 0 ? sim_execs / total : 0,
                 cal_rate = total > 0 ? cal_execs / total : 0;
    const double diff = 100.0 * (hw_rate - sim_rate);
    ++points;
    overall_ok += std::fabs(diff) <= kMarkedDiffPp;
    executions_ok += std::fabs(worst) <= kMarkedExecutionDiffPp;
    calibrated_overall_ok += std::fabs(100.0 * (hw_rate - cal_rate)) <= kMarkedDiffPp;
    calibrated_executions_ok += std::fabs(cal_worst) <= kMarkedExecutionDiffPp;
    o << "| " << key.first << " | " << key.second << " | " << fmt("%.2f", mid(pace_p10)) << " / "
      << fmt("%.2f", mid(pace_p50)) << " / " << fmt("%.2f", mid(pace_p90)) << " | " << pct(hw_rate) << " | "
      << pct(sim_rate) << " | " << pp(diff) << " | " << pp(worst, kMarkedExecutionDiffPp) << " | "
      << fmt("%.3f", brier_n > 0 ? brier / brier_n : 0) << " | "
      << (calibrated_p50.empty() ? std::string("-") : fmt("%.2f", mid(calibrated_p50))) << " | "
      << pp(cal_worst, kMarkedExecutionDiffPp) << " |\n";
  }
  o << "\nWith " << label << ", " << overall_ok << " of " << points << " points lie within "
    << fmt("%.0f", kMarkedDiffPp) << " pp overall and " << executions_ok << " of " << points << " within "
    << fmt("%.0f", kMarkedExecutionDiffPp) << " pp on every execution; calibrated (the last column's prediction), "
    << calibrated_overall_ok << " and " << calibrated_executions_ok << ".\n";
}

/// How far `x` lies outside [lo, hi]: 0 inside, else its signed distance to the nearer end.
double outside(double x, double lo, double hi) { return x < lo ? x - lo : x > hi ? x - hi : 0; }

/// The points whose runs have a pace band (sim_pace_band), each execution's band the lowest to the
/// highest probability of the band's centre (the calibrated or re-predicted prediction) and its two
/// ends, against the hardware's fraction, as a table and a sentence counting the points within
/// bounds of the band and of its centre.
void band_table(std::ostream& o, const Groups& groups) {
  o << "| scenario | semaphore | pace factors p0 / p99 | hw rate, all | band rate, all | outside the band, all | "
       "largest per-execution distance outside the band | widest band (execution) | centre: largest "
       "per-execution diff |\n|---|---|---|---|---|---|---|---|---|\n";
  int points = 0, overall_ok = 0, executions_ok = 0, centre_overall_ok = 0, centre_executions_ok = 0;
  for (const auto& [key, runs] : groups) {
    double hw_execs = 0, lo_execs = 0, hi_execs = 0, centre_execs = 0, total = 0, worst = 0, centre_worst = 0, widest = -1;
    int widest_execution = 0;
    double low_factor = 1, high_factor = 1;
    for (const Run* r : runs) {
      if (!r->band_low || !r->band_high) continue;
      const Prediction& centre = r->band_around_repredicted ? *r->repredicted : r->sim;
      const Prediction* three[] = {&centre, &*r->band_low, &*r->band_high};
      const double n = double(r->trials) * double(r->executions);
      if (total == 0) low_factor = r->band_low_factor, high_factor = r->band_high_factor;
      hw_execs += double(r->corrupted_executions);
      double lo = 1, hi = 0;
      for (const Prediction* p : three) lo = std::min(lo, p->rate), hi = std::max(hi, p->rate);
      lo_execs += lo * n, hi_execs += hi * n, centre_execs += centre.rate * n;
      total += n;
      for (std::size_t e = 0; e < r->hw_by_execution.size(); ++e) {
        double e_lo = 1, e_hi = 0;
        for (const Prediction* p : three) {
          const double q = p->runs && e < p->by_execution.size() ? double(p->by_execution[e]) / p->runs : 0;
          e_lo = std::min(e_lo, q), e_hi = std::max(e_hi, q);
        }
        const double d = outside(r->trials ? double(r->hw_by_execution[e]) / r->trials : 0, e_lo, e_hi);
        if (std::fabs(d) > std::fabs(worst)) worst = d;
        if (e_hi - e_lo > widest) widest = e_hi - e_lo, widest_execution = int(e);
      }
      const double cw = r->largest_execution_diff_pp(centre);
      if (std::fabs(cw) > std::fabs(centre_worst)) centre_worst = cw;
    }
    if (total == 0) continue;  // no run of this point has a band
    const double hw_rate = hw_execs / total, lo_rate = lo_execs / total, hi_rate = hi_execs / total;
    const double diff = 100.0 * outside(hw_rate, lo_rate, hi_rate);
    ++points;
    overall_ok += std::fabs(diff) <= kMarkedDiffPp;
    executions_ok += std::fabs(100 * worst) <= kMarkedExecutionDiffPp;
    centre_overall_ok += std::fabs(100.0 * (hw_rate - centre_execs / total)) <= kMarkedDiffPp;
    centre_executions_ok += std::fabs(centre_worst) <= kMarkedExecutionDiffPp;
    o << "| " << key.first << " | " << key.second << " | " << fmt("%.2f", low_factor) << " / "
      << fmt("%.2f", high_factor) << " | " << pct(hw_rate) << " | " << pct(lo_rate) << " to " << pct(hi_rate) << " | "
      << pp(diff) << " | " << pp(100 * worst, kMarkedExecutionDiffPp) << " | " << fmt("%.1f pp", 100 * widest) << " ("
      << widest_execution << ") | " << pp(centre_worst, kMarkedExecutionDiffPp) << " |\n";
  }
  o << "\nWith the band, " << overall_ok << " of " << points << " points lie within " << fmt("%.0f", kMarkedDiffPp)
    << " pp of it overall and " << executions_ok << " of " << points << " within " << fmt("%.0f", kMarkedExecutionDiffPp)
    << " pp of it on every execution; its centre alone, " << centre_overall_ok << " and " << centre_executions_ok << ".\n";
}

}  // namespace

std::string validate_summary_markdown(const std::string& dir) {
  const Session s = read_session(dir);
  std::ostringstream o;
  o << "# Hardware validation: summary\n\n"
    << "Generated by `allocsim-hw summarize " << dir << "` from the `validate.json` files below this folder; "
       "every number and sentence here is computed from them (do not edit by hand). Device: "
    << s.device << ".\n\n";

  o << "Platform profile the simulator used (this session's calibration):";
  for (const auto& [key, value] : s.platform) {
    if (!value.is_number()) continue;
    o << " " << std::string(key) << " " << (value.is_double() ? fmt("%.4g", value.as_double()) : json::serialize(value))
      << ";";
  }
  o << "\n\n";

  // ---- per scenario x semaphore
  o << "## Per scenario and semaphore\n\n"
    << "Rates are per execution: hardware = executions with a read that saw another allocation's data; "
       "simulator = executions with a manifest corruption. `racy in sim` counts combinations with a "
       "latent race or a manifest corruption; `corrupted on hw` those with a corrupted trial. Per execution "
       "index, the hardware's fraction of trials that corrupted it is set against the simulator's fraction of "
       "runs (its probability); the largest difference is listed, and the Brier score of those probabilities "
       "against each trial's outcome.\n\n"
    << "| scenario | semaphore | combinations | racy in sim | corrupted on hw | hw rate, all | sim rate, all | "
       "diff | largest per-combination diff | largest per-execution diff |\n|---|---|---|---|---|---|---|---|---|---|\n";
  Groups groups;
  for (const Run& r : s.runs) groups[{r.scenario, r.semaphore}].push_back(&r);
  for (const auto& [key, runs] : groups) {
    int racy = 0, corrupted = 0;
    double hw_execs = 0, sim_execs = 0, total = 0;
    const Run* worst = runs.front();
    const Run* worst_exec = runs.front();
    for (const Run* r : runs) {
      if (std::fabs(r->largest_execution_diff_pp()) > std::fabs(worst_exec->largest_execution_diff_pp())) worst_exec = r;
      racy += r->sim_racy();
      corrupted += r->corrupted > 0;
      hw_execs += double(r->corrupted_executions);
      sim_execs += r->sim.rate * double(r->trials) * double(r->executions);
      total += double(r->trials) * double(r->executions);
      if (std::fabs(r->diff_pp()) > std::fabs(worst->diff_pp())) worst = r;
    }
    const double hw_rate = total > 0 ? hw_execs / total : 0, sim_rate = total > 0 ? sim_execs / total : 0;
    o << "| " << key.first << " | " << key.second << " | " << runs.size() << " | " << racy << " | " << corrupted
      << " | " << pct(hw_rate) << " | " << pct(sim_rate) << " | " << pp(100.0 * (hw_rate - sim_rate)) << " | "
      << pp(worst->diff_pp()) << " (" << worst->combo() << ") | " << pp(worst_exec->largest_execution_diff_pp())
      << " (" << worst_exec->combo() << ") |\n";
  }

  // ---- points whose trials ran in several processes
  if (std::any_of(s.runs.begin(), s.runs.end(), [](const Run& r) { return r.processes > 1; })) {
    o << "\n## Trials pooled over processes\n\n"
      << "At these points each combination's trials ran in separate validating processes, one after another "
         "(`<scenario>/semaphore-<n>/process-<i>/validate.json`), and every table here pools them: the hardware's "
         "fraction of trials that corrupted an execution is over all of them, as the simulator's probability is "
         "over all of its runs. The host runs at a pace of its own in each process (results/hw/h200-process-pace), "
         "so one process's trials are a sample of one pace, and a knife-edge execution's rate in one process "
         "tells of that process more than of the GPU. The calibrated prediction is one and the same in every "
         "process (checked); a prediction from what each process measured itself (its trials' or warm-up's pace, "
         "its release) pools each process's simulated runs. Beside the pooled difference, each process's own "
         "largest per-execution difference against the calibrated prediction, and how many of the processes "
         "were within " << fmt("%.0f", kMarkedExecutionDiffPp) << " pp alone. Last, the host's pace in each process, "
         "lowest to highest over the processes: on the calibration's host-pace workload, which each validating "
         "process runs first, against the calibrating process (validate.json's `process_pace`); and its trials' "
         "median pace on this program against the simulator's (launch cadence, as in the host-paced prediction "
         "below).\n\n"
      << "| scenario | semaphore | policy + guard | processes | trials | pooled: largest per-execution diff | "
         "one process: smallest and largest | processes within " << fmt("%.0f", kMarkedExecutionDiffPp)
      << " pp | workload pace | trials' pace |\n|---|---|---|---|---|---|---|---|---|---|\n";
    auto span = [](std::vector<double> v) {
      if (v.empty()) return std::string("-");
      std::sort(v.begin(), v.end());
      return fmt("%.2f", v.front()) + "–" + fmt("%.2f", v.back());
    };
    for (const Run& r : s.runs) {
      if (r.processes < 2) continue;
      double smallest = r.process_worst_pp.front(), largest = smallest;
      int within = 0;
      for (double d : r.process_worst_pp) {
        if (std::fabs(d) < std::fabs(smallest)) smallest = d;
        if (std::fabs(d) > std::fabs(largest)) largest = d;
        within += std::fabs(d) <= kMarkedExecutionDiffPp;
      }
      o << "| " << r.scenario << " | " << r.semaphore << " | " << r.combo() << " | " << r.processes << " | "
        << r.trials << " | " << pp(r.largest_execution_diff_pp(), kMarkedExecutionDiffPp) << " | "
        << pp(smallest, kMarkedExecutionDiffPp) << ", " << pp(largest, kMarkedExecutionDiffPp) << " | " << within
        << " of " << r.processes << " | " << span(r.workload_pace_by_process) << " | " << span(r.trial_pace_by_process)
        << " |\n";
    }
  }

  // ---- the same points, predicted with the host pace measured in their own trials
  bool any_paced = false;
  for (const Run& r : s.runs) any_paced = any_paced || r.paced.has_value();
  if (any_paced) {
    int scaled_points = 0, all_points = 0;
    for (const auto& [key, runs] : groups) {
      if (std::none_of(runs.begin(), runs.end(), [](const Run* r) { return r->paced.has_value(); })) continue;
      ++all_points;
      scaled_points += std::any_of(runs.begin(), runs.end(), [](const Run* r) { return r->pace_scaled; });
    }
    const std::string scaled_note =
        scaled_points == 0 ? std::string()
                           : " At " + std::to_string(scaled_points) + " of " + std::to_string(all_points) +
                                 " points validate scaled it by the host's pace in its own process (validate.json's "
                                 "`process_pace`, written without `\"applied\": false`).";
    o << "\n## Predicted with this host's pace on each program\n\n"
      << "The simulator charges the calibrated host costs; the harness's host ran each program at its own pace "
         "around them. Each trial's host time on the GPU over the simulator's median for the same program "
         "(`sim_host_paced` in validate.json; hw/include/allocsim/hw/validate_report.h says which time) is that "
         "trial's host pace; the prediction below draws each simulated run's pace from those trials' quantiles "
         "instead of the calibration's. Only the host's speed comes from the trials, none of their outcomes. "
         "Pace: the medians over each point's combinations of their p10, median and p90. The calibrated "
         "prediction's pace is the calibration's; its median is in the last column but one."
      << scaled_note << "\n\n";
    paced_table(o, groups, &Run::paced, "the measured pace");
  }

  // ---- the same points, predicted with the pace of the warm-up trials run before the counted ones
  int warmup_min = 0, warmup_max = 0;
  for (const Run& r : s.runs)
    if (r.warmup_paced) {
      warmup_min = warmup_min == 0 ? r.warmup_trials : std::min(warmup_min, r.warmup_trials);
      warmup_max = std::max(warmup_max, r.warmup_trials);
    }
  if (warmup_max > 0) {
    o << "\n## Predicted with the pace of warm-up trials run first in the same process\n\n"
      << "Before its counted trials each combination ran "
      << (warmup_min == warmup_max ? std::to_string(warmup_max)
                                   : std::to_string(warmup_min) + " to " + std::to_string(warmup_max))
      << " uncounted trials of the same program on the same device in the same process (`validate --warmup-trials`). "
         "Their host pace, each one's launch cadence over the simulator's median, is the one this prediction (`sim_warmup_paced`) draws "
         "from: it is known before the first counted trial, so nothing of the trials it is compared with went "
         "into it.\n\n";
    paced_table(o, groups, &Run::warmup_paced, "the warm-up's pace");
  }

  // ---- the calibrated prediction as a band over the calibration's own host pace
  if (std::any_of(s.runs.begin(), s.runs.end(), [](const Run& r) { return r.band_low.has_value(); })) {
    const bool around_repredicted =
        std::any_of(s.runs.begin(), s.runs.end(), [](const Run& r) { return r.band_around_repredicted; });
    o << "\n## The prediction as a band over the calibration's host pace\n\n"
      << "The host ran a whole session at one pace and the next at another, and an execution on the edge "
         "followed it. From the calibration alone the prediction can bound such an execution, not pin it: "
         "its runs again with every host-pace draw times the calibration's own lowest (p0) and highest (p99) "
         "host pace over its median (`sim_pace_band` in validate.json; "
      << (around_repredicted ? "around the re-prediction, `allocsim-hw repredict --pace-band`"
                             : "`allocsim-hw validate --pace-band`")
      << "). An execution's band runs from the lowest to the highest probability of the three predictions; "
         "the band's centre is "
      << (around_repredicted ? "the re-prediction (`sim_repredicted`)" : "the calibrated prediction (`sim`)")
      << ". Distances outside the band are to its nearer end (0 inside it).\n\n";
    band_table(o, groups);
  }

  // ---- the same points, predicted again offline (allocsim-hw repredict)
  std::set<std::string> repredicted_from;
  for (const Run& r : s.runs)
    if (r.repredicted) repredicted_from.insert(r.repredicted_from);
  if (!repredicted_from.empty()) {
    std::string from;
    for (const std::string& f : repredicted_from) from += (from.empty() ? "" : "; ") + f;
    o << "\n## Predicted again: " << from << "\n\n"
      << "`allocsim-hw repredict` ran the simulator again on these files (`sim_repredicted` in validate.json), with the "
         "same seeds and runs as `sim` and the host pace and semaphore release named above: `trials`, the counted "
         "trials' pace (as host-paced) or the releases timed after each of them (`release_after_op_by_trial`); "
         "`warmup`, the warm-up's pace; `process`, the release each validating process timed before its trials; "
         "`calibration`, the calibration's. In blocks of n trials, each simulated run draws what comes from the "
         "trials from one block's trials only, the runs split into as many blocks in order. The hardware's side is "
         "the files'.\n\n";
    paced_table(o, groups, &Run::repredicted, "this prediction");
  }

  // ---- the same points, predicted with the calibration's release path instead of the process's
  bool any_release = false;
  int applied_points = 0, release_points = 0;
  for (const Run& r : s.runs) any_release = any_release || r.release_here.has_value();
  for (const auto& [key, runs] : groups) {
    release_points += std::any_of(runs.begin(), runs.end(), [](const Run* r) { return r->release_here.has_value(); });
    applied_points += std::any_of(runs.begin(), runs.end(), [](const Run* r) { return r->release_applied; });
  }
  if (any_release) {
    o << "\n## The semaphore release: timed in each validating process against the calibration's\n\n"
      << "Each validate process timed calibrate's semaphore release (a kernel's end to its callback's body, "
         "`callback_after_op_ns`) before its trials (`process_release` in validate.json), and predicted the "
         "program again charging that instead of the calibration's, everything else the same. "
      << (applied_points == 0 ? std::string("The tables above show the calibration's (`sim`); this process's is "
                                            "`sim_process_release`.")
                              : "At " + std::to_string(applied_points) + " of " + std::to_string(release_points) +
                                    " points validate applied this process's: the tables above show it (`sim`), and "
                                    "`sim_calibration_release` is the calibration's.")
      << " Release: median / p90 in us, the largest over each point's files.\n\n"
      << "| scenario | semaphore | release here | release calibrated | here: diff | here: largest per-execution diff | "
         "calibration's: diff | calibration's: largest per-execution diff |\n|---|---|---|---|---|---|---|---|\n";
    int points = 0, here_overall = 0, here_executions = 0, cal_overall = 0, cal_executions = 0;
    auto us_at = [](const std::vector<double>& q, double level) {
      return q.size() == kSpreadLevels.size() ? PlatformSpread::at(q, level) / 1000 : 0.0;
    };
    for (const auto& [key, runs] : groups) {
      double hw_execs = 0, here_execs = 0, cal_execs = 0, total = 0, here_worst = 0, cal_worst = 0;
      double here_p50 = 0, here_p90 = 0, cal_p50 = 0, cal_p90 = 0;
      bool any = false;
      for (const Run* r : runs) {
        if (!r->release_here) continue;
        any = true;
        const double n = double(r->trials) * double(r->executions);
        hw_execs += double(r->corrupted_executions);
        here_execs += r->release_here->rate * n;
        cal_execs += r->release_calibrated->rate * n;
        total += n;
        const double h = r->largest_execution_diff_pp(*r->release_here);
        if (std::fabs(h) > std::fabs(here_worst)) here_worst = h;
        const double c = r->largest_execution_diff_pp(*r->release_calibrated);
        if (std::fabs(c) > std::fabs(cal_worst)) cal_worst = c;
        here_p50 = std::max(here_p50, us_at(r->release_measured, 0.5));
        here_p90 = std::max(here_p90, us_at(r->release_measured, 0.9));
        cal_p50 = std::max(cal_p50, us_at(r->release_calibration, 0.5));
        cal_p90 = std::max(cal_p90, us_at(r->release_calibration, 0.9));
      }
      if (!any) continue;
      const double here_diff = total > 0 ? 100.0 * (hw_execs - here_execs) / total : 0;
      const double cal_diff = total > 0 ? 100.0 * (hw_execs - cal_execs) / total : 0;
      ++points;
      here_overall += std::fabs(here_diff) <= kMarkedDiffPp;
      here_executions += std::fabs(here_worst) <= kMarkedExecutionDiffPp;
      cal_overall += std::fabs(cal_diff) <= kMarkedDiffPp;
      cal_executions += std::fabs(cal_worst) <= kMarkedExecutionDiffPp;
      o << "| " << key.first << " | " << key.second << " | " << fmt("%.0f", here_p50) << " / " << fmt("%.0f", here_p90)
        << " | " << fmt("%.0f", cal_p50) << " / " << fmt("%.0f", cal_p90) << " | " << pp(here_diff) << " | "
        << pp(here_worst, kMarkedExecutionDiffPp) << " | " << pp(cal_diff) << " | "
        << pp(cal_worst, kMarkedExecutionDiffPp) << " |\n";
    }
    o << "\nWith the release timed in each process, " << here_overall << " of " << points << " points lie within "
      << fmt("%.0f", kMarkedDiffPp) << " pp overall and " << here_executions << " of " << points << " within "
      << fmt("%.0f", kMarkedExecutionDiffPp) << " pp on every execution; with the calibration's, " << cal_overall
      << " and " << cal_executions << ".\n";
  }

  // ---- every combination with a race or corruption on either side
  o << "\n## Combinations racy in the simulator or corrupted on the hardware\n\n"
    << "| scenario | semaphore | policy + guard | aliased trials | corrupted trials | hw corrupted executions | "
       "sim latent | sim manifest executions | diff | largest per-execution diff | Brier |\n"
       "|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::size_t quiet = 0, quiet_but_corrupted = 0;
  for (const Run& r : s.runs) {
    if (!r.sim_racy() && r.corrupted == 0) {
      ++quiet;
      continue;
    }
    if (!r.sim_racy()) ++quiet_but_corrupted;
    const std::uint64_t execs = std::uint64_t(r.trials) * std::uint64_t(r.executions);
    o << "| " << r.scenario << " | " << r.semaphore << " | " << r.combo() << " | " << r.aliased << "/" << r.trials
      << " | " << r.corrupted << "/" << r.trials << " | " << r.corrupted_executions << "/" << execs << " ("
      << pct(r.hw_rate) << ") | " << r.latent << " | " << r.sim.manifest_executions << "/"
      << std::uint64_t(r.sim.runs) * std::uint64_t(r.executions) << " (" << pct(r.sim.rate) << ") | "
      << pp(r.diff_pp()) << " | " << pp(r.largest_execution_diff_pp(), kMarkedExecutionDiffPp) << " | " << fmt("%.3f", r.brier()) << " |\n";
  }
  o << "\nThe other " << quiet << " of " << s.runs.size()
    << " combinations have no latent race and no manifest corruption in the simulator and no corrupted "
       "trial on the hardware.";
  if (quiet_but_corrupted > 0)
    o << " " << quiet_but_corrupted
      << " combinations the simulator calls race-free were corrupted on the hardware (listed above).";
  else
    o << " No combination the simulator calls race-free was corrupted on the hardware.";
  o << "\n";

  // ---- racy sets per scenario, as a sentence computed from the runs
  std::map<std::string, std::vector<std::string>> racy_combos;
  for (const Run& r : s.runs)
    if (r.sim_racy()) {
      auto& v = racy_combos[r.scenario];
      if (std::find(v.begin(), v.end(), r.combo()) == v.end()) v.push_back(r.combo());
    }
  o << "\nRacy in the simulator at some semaphore:";
  for (const auto& [scenario, combos] : racy_combos) {
    o << " " << scenario << ":";
    for (std::size_t i = 0; i < combos.size(); ++i) o << (i ? ", " : " ") << "`" << combos[i] << "`";
    o << ";";
  }
  if (racy_combos.empty()) o << " none.";
  o << "\n";

  // ---- peaks
  std::size_t equal = 0, unstable = 0;
  std::vector<const Run*> differ;
  for (const Run& r : s.runs) {
    if (r.peak_hw != r.peak_hw_min) ++unstable;
    if (r.peak_hw == r.sim.peak) ++equal;
    else differ.push_back(&r);
  }
  o << "\n## Peak pool bytes in use, simulator vs hardware\n\n"
    << equal << " of " << s.runs.size() << " combinations have the same peak on both; " << unstable
    << " vary from trial to trial on the hardware.";
  if (!differ.empty()) {
    o << " The others (MiB):\n\n| scenario | semaphore | policy + guard | hw min–max | sim |\n|---|---|---|---|---|\n";
    std::size_t inside = 0;
    const Run* farthest = nullptr;  // the simulated peak farthest outside its hardware range, relative
    double farthest_gap = 0;
    for (const Run* r : differ) {
      const bool in_range = r->sim.peak >= r->peak_hw_min && r->sim.peak <= r->peak_hw;
      inside += in_range;
      const std::uint64_t bound = r->sim.peak < r->peak_hw_min ? r->peak_hw_min : r->peak_hw;
      const double gap = in_range || bound == 0 ? 0 : std::fabs(double(r->sim.peak) - double(bound)) / double(bound);
      if (gap > farthest_gap) farthest_gap = gap, farthest = r;
      o << "| " << r->scenario << " | " << r->semaphore << " | " << r->combo() << " | " << mib(r->peak_hw_min)
        << "–" << mib(r->peak_hw) << " | " << mib(r->sim.peak) << (in_range ? "" : " (outside)") << " |\n";
    }
    o << "\n" << inside << " of these " << differ.size()
      << " lie within the hardware's range over its trials; " << differ.size() - inside << " lie outside it";
    if (farthest)
      o << ", the farthest by " << fmt("%.1f%%", 100 * farthest_gap) << " of the range's nearer end ("
        << farthest->scenario << ", semaphore " << farthest->semaphore << ", " << farthest->combo() << ")";
    o << ".\n";
  } else {
    o << "\n";
  }
  // Where the simulator sampled its costs: does each hardware range lie inside the simulated one?
  // Beside the calibrated prediction, each other one some run has (host-paced, re-predicted).
  struct Alternative {
    const char* label;
    std::optional<Prediction> Run::*which;
    std::size_t inside = 0, deferring_inside = 0;
  };
  std::vector<Alternative> alternatives;
  for (Alternative a : {Alternative{"host-paced", &Run::paced}, Alternative{"re-predicted", &Run::repredicted}})
    if (std::any_of(s.runs.begin(), s.runs.end(), [&](const Run& r) { return (r.*a.which).has_value(); }))
      alternatives.push_back(a);
  std::vector<const Run*> varying;  // a peak that varies on either side
  auto varies = [](const Run& r, const Prediction& p) {
    return p.has_range && (r.peak_hw != r.peak_hw_min || p.peak_min != p.peak_max);
  };
  for (const Run& r : s.runs)
    if (varies(r, r.sim) || (r.paced && varies(r, *r.paced))) varying.push_back(&r);
  if (!varying.empty()) {
    auto inside_of = [](const Run& r, const Prediction& p) {
      return r.peak_hw_min >= p.peak_min && r.peak_hw <= p.peak_max;
    };
    o << "\nPeaks that vary from trial to trial or from sample to sample, against the simulator's range over its "
         "runs (MiB";
    for (const Alternative& a : alternatives)
      o << "; " << a.label << ": the "
        << (a.which == &Run::paced ? "prediction with the host pace measured on the GPU"
                                   : "prediction of the section \"Predicted again\"");
    o << "):\n\n| scenario | semaphore | policy + guard | hw min–max | sim min–max | hw inside sim |";
    for (const Alternative& a : alternatives) o << " " << a.label << " sim min–max | hw inside " << a.label << " |";
    o << "\n|---|---|---|---|---|---|";
    for (std::size_t i = 0; i < alternatives.size(); ++i) o << "---|---|";
    o << "\n";
    std::size_t inside = 0, deferring = 0, deferring_inside = 0;
    for (const Run* r : varying) {
      const bool in = inside_of(*r, r->sim);
      // The callback and poll policies: those whose held bytes depend on when the device finishes.
      const bool defers = r->policy.find("callback") != std::string::npos || r->policy.find("poll") != std::string::npos;
      inside += in;
      deferring += defers;
      deferring_inside += defers && in;
      o << "| " << r->scenario << " | " << r->semaphore << " | " << r->combo() << " | " << mib(r->peak_hw_min) << "–"
        << mib(r->peak_hw) << " | " << mib(r->sim.peak_min) << "–" << mib(r->sim.peak_max) << " | "
        << (in ? "yes" : "**no**") << " |";
      for (Alternative& a : alternatives) {
        const std::optional<Prediction>& p = r->*a.which;
        const bool alt_in = p && inside_of(*r, *p);
        a.inside += alt_in;
        a.deferring_inside += defers && alt_in;
        if (p)
          o << " " << mib(p->peak_min) << "–" << mib(p->peak_max) << " | " << (alt_in ? "yes" : "**no**") << " |";
        else
          o << " — | — |";
      }
      o << "\n";
    }
    o << "\nThe hardware's range lies inside the simulator's for " << inside << " of these " << varying.size()
      << " combinations; for the callback and poll policies, " << deferring_inside << " of " << deferring << ".";
    for (const Alternative& a : alternatives)
      o << " Inside the " << a.label << " prediction's: " << a.inside << " of " << varying.size()
        << "; for the callback and poll policies, " << a.deferring_inside << " of " << deferring << ".";
    o << "\n";
  }

  // ---- host cost per free, simulator vs hardware, per policy over all of its combinations
  struct PolicyCost {
    std::string policy;
    std::vector<double> hw, sim;
  };
  std::vector<PolicyCost> per_policy;  // in the files' (registry) order
  for (const Run& r : s.runs) {
    if (r.host_ns_per_free <= 0 || r.sim_host_ns_per_free <= 0) continue;  // freed nothing
    auto it = std::find_if(per_policy.begin(), per_policy.end(), [&](const auto& p) { return p.policy == r.policy; });
    if (it == per_policy.end()) it = per_policy.insert(per_policy.end(), {r.policy, {}, {}});
    it->hw.push_back(r.host_ns_per_free);
    it->sim.push_back(r.sim_host_ns_per_free);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  o << "\n## Host time per free, simulator vs hardware\n\n"
    << "Host time spent in a release's plan (the policy's and guard's work, their backend calls and waits) per "
       "free: each combination's median over its trials (hardware, less the validation's own stream queries) or "
       "its seeds (simulator); per policy the median over its combinations, and the hardware's range. They agree "
       "when the simulator is within "
    << fmt("%.0f", 100 * kHostCostTolerance) << "% of the hardware.\n\n"
    << "| policy | combinations | hw median (us) | hw min–max (us) | sim median (us) | sim vs hw |\n"
       "|---|---|---|---|---|---|\n";
  std::vector<std::string> agree, disagree;
  for (const PolicyCost& p : per_policy) {
    const double hw = median(p.hw), sim = median(p.sim), rel = hw > 0 ? sim / hw - 1 : 0;
    const bool ok = std::fabs(rel) <= kHostCostTolerance;
    (ok ? agree : disagree).push_back("`" + p.policy + "`");
    const std::string rel_text = fmt("%+.0f%%", 100 * rel);
    o << "| " << p.policy << " | " << p.hw.size() << " | " << fmt("%.2f", hw / 1000) << " | "
      << fmt("%.2f", *std::min_element(p.hw.begin(), p.hw.end()) / 1000) << "–"
      << fmt("%.2f", *std::max_element(p.hw.begin(), p.hw.end()) / 1000) << " | " << fmt("%.2f", sim / 1000)
      << " | " << (ok ? rel_text : "**" + rel_text + "**") << " |\n";
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string t;
    for (std::size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + v[i];
    return t;
  };
  o << "\n" << agree.size() << " of " << per_policy.size() << " policies agree within "
    << fmt("%.0f", 100 * kHostCostTolerance) << "%";
  if (!agree.empty()) o << ": " << list(agree);
  o << ".";
  if (!disagree.empty()) o << " Outside it: " << list(disagree) << ".";
  o << "\n";

  // ---- what the hardware's release plans spent, call by call, against the profile
  std::array<CallTime, std::size_t(HostCall::kCount)> calls{};
  double trial_frees = 0;
  for (const Run& r : s.runs) {
    trial_frees += double(r.frees) * double(r.trials);
    for (std::size_t i = 0; i < calls.size(); ++i) {
      calls[i].calls += r.host_calls[i].calls;
      calls[i].ns += r.host_calls[i].ns;
    }
  }
  o << "\n## Backend calls in release plans on the hardware\n\n"
    << "Every call the host made inside a release plan, over all combinations and trials: how often per free, "
       "its mean host time here, and the platform-profile field the simulator charges for it (calibration's "
       "median of that call inside its own workload). Waits are charged their length in the simulator.\n\n"
    << "| call | calls per free | hw mean (ns) | profile field | profile (ns) | hw ÷ profile |\n"
       "|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].calls == 0) continue;
    const double mean = double(calls[i].ns) / double(calls[i].calls);
    const std::string field_name = kHostCalls[i].platform_field;
    const json::value* pv = field_name.empty() ? nullptr : s.platform.if_contains(field_name);
    const double profile = pv && pv->is_number() ? json::value_to<double>(*pv) : 0;
    o << "| " << kHostCalls[i].name << " | " << fmt("%.2f", trial_frees > 0 ? double(calls[i].calls) / trial_frees : 0)
      << " | " << fmt("%.0f", mean) << " | " << (field_name.empty() ? "—" : "`" + field_name + "`") << " | "
      << (profile > 0 ? fmt("%.0f", profile) : "—") << " | " << (profile > 0 ? fmt("%.2f", mean / profile) : "—")
      << " |\n";
  }

  // ---- errors
  std::size_t errors = 0;
  for (const Run& r : s.runs) errors += !r.error.empty() || !r.sim.available;
  o << "\n## Errors\n\n";
  if (errors == 0) o << "No run reported an error.\n";
  for (const Run& r : s.runs)
    if (!r.error.empty() || !r.sim.available)
      o << "- " << r.scenario << " semaphore " << r.semaphore << " " << r.combo() << ": "
        << (r.error.empty() ? std::string("simulator unavailable") : r.error) << "\n";
  return o.str();
}

}  // namespace allocsim::hw
