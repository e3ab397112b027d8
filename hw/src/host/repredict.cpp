// See repredict.h.
#include "allocsim/hw/repredict.h"

#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "allocsim/engine/execution_units.h"
#include "allocsim/hw/host_pace_workload.h"
#include "allocsim/hw/sim_prediction.h"
#include "allocsim/results/atomic_file.h"
#include "allocsim/results/pace_scan.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/resolve.h"
#include "validate_json_reading.h"

namespace allocsim::hw {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

using validate_json_reading::field;
using validate_json_reading::numbers;

/// Whether `profile` is the one a file's "platform" object names: every field the file has equal,
/// and every field it lacks (the file predates it) at its default, as reading the file would give.
bool same_profile(const PlatformProfile& profile, const json::value& file_platform) {
  const json::value mine = json::parse(platform_to_json(profile));
  static const json::value defaults = json::parse(platform_to_json(PlatformProfile{}));  // once, not per file
  if (!file_platform.is_object()) return false;
  for (const auto& [key, value] : file_platform.as_object())
    if (const json::value* m = mine.as_object().if_contains(key); !m || *m != value) return false;
  for (const auto& [key, value] : mine.as_object())
    if (!file_platform.as_object().contains(key) && value != defaults.as_object().at(key)) return false;
  return true;
}

/// The host pace a run's re-prediction draws: the calibration's, or the trials' or warm-up's
/// cadence over the file's simulated median. Older files have no per-trial cadence; their
/// sim_host_paced holds the trials' pace quantiles themselves.
std::vector<double> pace_of(const json::object& run, const PlatformSpread& spread, PaceSource source,
                            const fs::path& file) {
  // The level is the spread's own (host_pace_level), which the simulator applies to any pace.
  if (source == PaceSource::kCalibration || source == PaceSource::kCalibrationLevel) return spread.host_pace;
  // Only a measured pace needs the simulated cadence (files from before it have none).
  const double sim_cadence = field(field(run, "sim", file).as_object(), "host_cadence_ns", file).to_number<double>();
  std::vector<double> pace;
  if (source == PaceSource::kTrials) {
    if (const json::value* c = run.if_contains("host_cadence_by_trial"))
      pace = host_pace_of(numbers(*c), sim_cadence);
    else if (const json::value* paced = run.if_contains("sim_host_paced"))
      pace = numbers(field(paced->as_object(), "host_pace", file));
  } else if (const json::value* w = run.if_contains("warmup")) {
    pace = host_pace_of(numbers(field(w->as_object(), "host_cadence_by_trial", file)), sim_cadence);
  }
  if (pace.empty())
    throw std::runtime_error(file.string() + ": no " + pace_source_name(source) + " pace measured in this file");
  return pace;
}

/// by_trial's entries in consecutive blocks of `size` (the last may be shorter); one block of all
/// for size 0.
template <class T>
std::vector<std::vector<T>> in_blocks(const std::vector<T>& by_trial, int size) {
  const std::size_t n = size > 0 ? std::size_t(size) : std::max<std::size_t>(by_trial.size(), 1);
  std::vector<std::vector<T>> blocks;
  for (std::size_t i = 0; i < by_trial.size(); i += n)
    blocks.emplace_back(by_trial.begin() + std::ptrdiff_t(i), by_trial.begin() + std::ptrdiff_t(std::min(i + n, by_trial.size())));
  return blocks;
}

/// A run's conditions, block by block: `base` with `pace` (pace_of's, from all the trials) and,
/// where they come from the trials, the pace and release of each block's trials alone.
std::vector<RunConditions> run_conditions(const json::object& run, const RunConditions& base, const std::vector<double>& pace,
                                          const RepredictOptions& options, std::size_t after_op, const fs::path& file) {
  const bool trials_pace = options.pace == PaceSource::kTrials, trials_release = options.release == ReleaseSource::kTrials;
  RunConditions pooled = base;
  pooled.spread.host_pace = pace;
  std::vector<std::vector<double>> pace_blocks, release_blocks;
  if (trials_pace && options.blocks > 0) {
    const json::value* c = run.if_contains("host_cadence_by_trial");
    if (!c) throw std::runtime_error(file.string() + ": no host_cadence_by_trial, so no pace block by block");
    pace_blocks = in_blocks(numbers(*c), options.blocks);
  }
  if (trials_release) {
    const json::value* r = run.if_contains("release_after_op_by_trial");
    if (!r)
      throw std::runtime_error(file.string() + ": no release_after_op_by_trial (validate ran without --release-per-trial)");
    std::vector<std::vector<double>> by_trial;
    for (const json::value& rounds : r->as_array()) by_trial.push_back(numbers(rounds));
    for (const std::vector<std::vector<double>>& block : in_blocks(by_trial, options.blocks)) {
      std::vector<double>& samples = release_blocks.emplace_back();
      for (const std::vector<double>& rounds : block) samples.insert(samples.end(), rounds.begin(), rounds.end());
      if (samples.empty()) throw std::runtime_error(file.string() + ": a block of trials with no release timed");
    }
  }
  if (!pace_blocks.empty() && !release_blocks.empty() && pace_blocks.size() != release_blocks.size())
    throw std::runtime_error(file.string() + ": host_cadence_by_trial and release_after_op_by_trial differ in trials");
  std::vector<RunConditions> blocks(std::max<std::size_t>({pace_blocks.size(), release_blocks.size(), 1}), pooled);
  // Read once, and only where blocks measured a pace (files from before it have no cadence).
  const double sim_cadence = pace_blocks.empty()
                                 ? 0
                                 : field(field(run, "sim", file).as_object(), "host_cadence_ns", file).to_number<double>();
  for (std::size_t b = 0; b < pace_blocks.size(); ++b) {
    blocks[b].spread.host_pace = host_pace_of(pace_blocks[b], sim_cadence);
    if (blocks[b].spread.host_pace.empty())
      throw std::runtime_error(file.string() + ": a block of trials with no host pace measured");
  }
  // After the blocks' own paces, so a factor scales whichever pace each block draws.
  if (options.pace_factor != 1)
    for (RunConditions& block : blocks) block.spread = scale_host_pace(block.spread, options.pace_factor);
  for (std::size_t b = 0; b < release_blocks.size(); ++b) {
    PlatformSpread& spread = blocks[b].spread;
    spread.quantiles[after_op] = spread_quantiles(release_blocks[b]);
    // As many tail points as the calibration's: a session calibrated before tails had more than
    // p99.9 and the largest sample is re-predicted as it was predicted then.
    const std::size_t points = pooled.spread.tails[after_op].empty() ? 2 : pooled.spread.tails[after_op].size();
    spread.tails[after_op] = spread_tail(release_blocks[b], points);
    blocks[b].platform.callback_after_op_ns = TimeNs(PlatformSpread::at(spread.quantiles[after_op], 0.5));
  }
  return blocks;
}

struct Job {
  fs::path from, to;
  json::object doc;
};

}  // namespace

const char* pace_source_name(PaceSource p) {
  switch (p) {
    case PaceSource::kCalibration: return "calibration";
    case PaceSource::kTrials: return "trials";
    case PaceSource::kWarmup: return "warmup";
    case PaceSource::kCalibrationLevel: return "calibration-level";
  }
  return "?";
}

const char* release_source_name(ReleaseSource r) {
  switch (r) {
    case ReleaseSource::kCalibration: return "calibration";
    case ReleaseSource::kProcess: return "process";
    case ReleaseSource::kTrials: return "trials";
  }
  return "?";
}

void repredict_session(const std::string& src, const std::string& out, const RepredictOptions& options,
                       const std::function<void(const std::string&)>& progress) {
  if (options.blocks > 0 && options.pace != PaceSource::kTrials && options.release != ReleaseSource::kTrials)
    throw std::runtime_error("--blocks needs the trials' pace or release (--pace trials or --release trials)");
  if (!(options.pace_factor > 0) || !std::isfinite(options.pace_factor))
    throw std::invalid_argument("the pace factor must be positive and finite, not " + std::to_string(options.pace_factor));
  std::vector<Job> jobs;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(src, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().filename() == "validate.json") jobs.push_back({it->path(), fs::path(out) / fs::relative(it->path(), src), {}});
  if (ec) throw std::runtime_error(src + ": " + ec.message());
  if (jobs.empty()) throw std::runtime_error(src + ": no validate.json below it");
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.from < b.from; });
  std::vector<const PlatformField*> zeroed;
  for (const std::string& name : options.zeroed) {
    const PlatformField* f = find_platform_field(name);
    if (!f) throw std::runtime_error("--zero: no platform field '" + name + "'");
    if (!f->ns) throw std::runtime_error("--zero: '" + name + "' is a rate, not a cost that can be 0");
    zeroed.push_back(f);
  }
  PlatformSpread calibrated_spread = load_platform_spread(options.platform_file);
  double level = calibrated_spread.host_pace_level;  // as the calibration recorded it (1: none)
  if (options.pace == PaceSource::kCalibrationLevel) {
    try {
      level = host_pace_level(load_platform_file(options.platform_file), calibrated_spread);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(options.platform_file + ": no host-pace level: " + e.what());
    }
    calibrated_spread.host_pace_level = level;
  }
  const std::size_t after_op = platform_field_index(*find_platform_field("callback_after_op_ns"));
  // The band's ends are the calibration's own pace range, whichever pace the runs draw.
  std::optional<PaceBandFactors> band;
  if (options.pace_band) band = require_pace_band_factors(calibrated_spread.host_pace, options.platform_file);
  for (Job& job : jobs) {
    const fs::path& file = job.from;
    json::value root = validate_json_reading::read_object(file);
    json::object& top = root.as_object();
    const std::string command = json::value_to<std::string>(field(top, "command", file));
    if (command.find(" --set") != std::string::npos || top.contains("schedule"))
      throw std::runtime_error(file.string() + ": a --set or --schedule run; repredict takes the plain passes only");
    RunConfig run;
    run.scenario = json::value_to<std::string>(field(top, "scenario", file));
    run.semaphore = int(field(top, "semaphore", file).to_number<std::int64_t>());
    run.platform_file = options.platform_file;
    const Scenario scenario = load_for_run(run);
    const SimOptions resolved = resolve_sim_options(scenario, run);
    if (!same_profile(resolved.platform, field(top, "platform", file)))
      throw std::runtime_error(file.string() + ": its platform profile is not " + options.platform_file + "'s");
    PlatformProfile platform = resolved.platform;
    if (options.check_sweep) platform.op_check_sweep = 1;
    PlatformSpread spread = calibrated_spread;
    for (const PlatformField* f : zeroed) {
      platform.*(f->ns) = 0;
      spread.quantiles[platform_field_index(*f)].clear();
      spread.tails[platform_field_index(*f)].clear();
    }
    bool release_tail = true;
    if (options.release == ReleaseSource::kProcess) {
      const json::value* pr = top.if_contains("process_release");
      if (!pr) throw std::runtime_error(file.string() + ": no process_release (the release was not timed here)");
      const json::object& release = pr->as_object();
      spread.quantiles[after_op] = numbers(field(release, "measured", file));
      const json::value* tail = release.if_contains("measured_tail");
      release_tail = tail != nullptr;
      spread.tails[after_op] = tail ? numbers(*tail) : std::vector<double>{};
      platform.callback_after_op_ns = TimeNs(PlatformSpread::at(spread.quantiles[after_op], 0.5));
    }
    const ExecutionUnits units = execution_units(scenario.program);
    field(top, "runs", file);  // present, or the error names it
    for (json::value& v : top["runs"].as_array()) {
      json::object& o = v.as_object();
      PredictionSetup setup;
      setup.policy = json::value_to<std::string>(field(o, "policy", file));
      setup.guard = json::value_to<std::string>(field(o, "guard", file));
      setup.semaphore = *run.semaphore;
      setup.params = resolved.params;
      setup.runs = int(field(field(o, "sim", file).as_object(), "runs", file).to_number<std::int64_t>());
      const std::vector<double> pace = pace_of(o, spread, options.pace, file);
      // The prediction with every pace draw times `factor` on top of the options' own.
      auto predict_at = [&](double factor) {
        RepredictOptions at = options;
        at.pace_factor = options.pace_factor * factor;
        SimPrediction sim =
            predict_by_blocks(scenario, setup, run_conditions(o, {platform, spread}, pace, at, after_op, file), units);
        // All the trials' pace, whatever the blocks drew, with the factor as the runs had it.
        PlatformSpread drawn;
        drawn.host_pace = pace;
        if (at.pace_factor != 1) drawn = scale_host_pace(drawn, at.pace_factor);
        sim.host_pace = levelled_pace(drawn.host_pace, spread.host_pace_level);
        return json::parse(sim_prediction_json(sim));
      };
      o["sim_repredicted"] = predict_at(1);
      if (band)
        o["sim_pace_band"] = json::object{{"low_factor", band->low},
                                          {"high_factor", band->high},
                                          {"low", predict_at(band->low)},
                                          {"high", predict_at(band->high)}};
      o.erase("callback_trials");  // megabytes of the source's per-trial callback stages, which no prediction reads
    }
    top["repredicted"] = json::object{{"pace", pace_source_name(options.pace)},
                                      {"release", release_source_name(options.release)},
                                      {"blocks", options.blocks},
                                      {"platform_source", options.platform_file},
                                      {"release_tail", release_tail}};
    // Files re-predicted before the level have no key, and read as level 1.
    if (options.pace == PaceSource::kCalibrationLevel || level != 1) top["repredicted"].as_object()["host_pace_level"] = level;
    if (options.check_sweep) top["repredicted"].as_object()["check_sweep"] = true;
    if (options.pace_factor != 1) top["repredicted"].as_object()["pace_factor"] = options.pace_factor;
    if (band) top["repredicted"].as_object()["pace_band"] = true;
    if (!zeroed.empty()) {
      json::array names;
      for (const std::string& name : options.zeroed) names.emplace_back(name);
      top["repredicted"].as_object()["zeroed"] = std::move(names);
    }
    job.doc = std::move(top);
    progress(file.string());
  }
  for (const Job& job : jobs) {
    fs::create_directories(job.to.parent_path());
    write_file_atomically(job.to.string(), json::serialize(job.doc) + "\n");
  }
}

}  // namespace allocsim::hw
