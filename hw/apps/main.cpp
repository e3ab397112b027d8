// allocsim-hw: run allocsim's host programs and policies on a real GPU through HIP.
//   allocsim-hw calibrate --out FILE [--trials N] [--tail-rounds N] [--pace-processes N]  measure the platform profile of this GPU
//   allocsim-hw validate SCENARIO --policies LIST|all --guards LIST|all --trials N --out DIR
//                        [--platform FILE] [--semaphore N] [--set key=value ...] [--timeline FILE]
//                        [--timeline-trial K] [--callback-log FILE] [--state-lock callbacks-first|plain] [--warmup-trials N]
//                        [--release-rounds N] [--release-per-trial N] [--host-cpu N] [--progress lines|off]
//   allocsim-hw repredict DIR --platform FILE --out OUT [--pace trials|warmup|calibration|calibration-level]
//                        [--release process|trials|calibration] [--blocks N] [--check-sweep] [--zero FIELD]
//                        the files' predictions again, no GPU
//   allocsim-hw validate [SCENARIO] --schedule FILE --trials N --out DIR [--platform FILE]
//                        the schedule's run with its delays forced, next to the same run unforced
// Exit status: 0 ok, 2 bad input, 3 hardware failure (no GPU, HIP error, device OOM). Output
// files are written whole or not at all.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <iostream>
#include <sstream>
#include <optional>

#include "allocsim/core/policy.h"
#include "allocsim/core/schedule.h"
#include "allocsim/results/schedule_run.h"
#include "allocsim/core/seeds.h"
#include "allocsim/hw/hw_device.h"
#include "allocsim/hw/repredict.h"
#include "allocsim/hw/sim_prediction.h"
#include "allocsim/hw/timeline.h"
#include "allocsim/hw/validate_report.h"
#include "allocsim/hw/validate_summary.h"
#include "allocsim/results/atomic_file.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/resolve.h"
#include "calibrate_host_calls.h"
#include "host_pace_processes.h"
#include "validate_runner.h"

namespace {

using namespace allocsim;

std::vector<std::string> split_list(const std::string& text, const std::vector<RegistryEntry>& all) {
  std::vector<std::string> out;
  if (text == "all") {
    for (const RegistryEntry& e : all) out.push_back(e.name);
    return out;
  }
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string join_args(int argc, char** argv) {
  std::string s = "allocsim-hw";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

/// Measures the device-side costs, then the host-side ones inside the calibration workload; writes
/// the profile to `out_path` once every field is measured and prints each with its meaning.
int cmd_calibrate(const std::string& out_path, int iterations, int tail_rounds, int trials, int pace_processes) {
  hw::CalibrationOutput c = hw::calibrate_device(iterations, tail_rounds);
  const hw::HostCallCalibration host =
      hw::calibrate_host_calls(c.profile, c.spread, hw::calibration_workload(false), trials);
  // The wake-up before the host pace: the pace workload's child processes read the profile from a
  // platform file, which refuses a field still unmeasured (negative).
  const std::string signal = hw::calibrate_signal_wakeup(c.profile, c.spread, 200);
  const std::string pace = hw::calibrate_host_pace(c.spread, c.profile, pace_processes);
  if (const PlatformField* f = first_unmeasured_field(c.profile))
    throw hw::HwError(std::string("calibrate: no valid measurement of ") + f->name);
  // Last, once every cost the simulator charges the workload is measured.
  c.spread.host_pace_level = hw::host_pace_level(c.profile, c.spread);
  save_platform_file(out_path, c.profile, c.spread);
  std::cout << "host calls measured in: " << host.workload << "\n";
  for (const auto& [name, count] : host.counts) std::cout << "  " << name << ": over " << count << " calls\n";
  for (const std::string& line : host.quantiles) std::cout << "  " << line << "\n";
  std::cout << "  " << pace << "\n  " << signal << "\n";
  std::cout << "  host_pace_level " << c.spread.host_pace_level
            << " (the workload's pooled median host busy time over the simulator's from these costs)\n";
  std::cout << "device: " << c.device << "\n";
  for (const PlatformField& f : kPlatformFields)
    std::cout << f.name << " = " << platform_value(c.profile, f) << "  (" << f.description << ")\n";
  for (const auto& [name, value] : c.extra) std::cout << "extra " << name << " = " << value << "\n";
  return 0;
}

/// What `--schedule FILE` asks for: the schedule and the delays as the GPU forces them.
struct ScheduleRequest {
  std::string file;
  Schedule schedule;
};

/// The run a schedule names (results/schedule_run.h), with --policies / --guards as the single
/// policy and guard they must then be.
ScheduleRequest apply_schedule(const std::string& file, RunConfig& run, std::string& policies, std::string& guards,
                               bool policies_given, bool guards_given) {
  if (policies_given) run.policy = policies;
  if (guards_given) run.guard = guards;
  ScheduleRequest req{file, allocsim::apply_schedule(file, run, "--policies", "--guards")};
  policies = run.policy;
  guards = run.guard;
  return req;
}

/// The release path differs between processes too (results/hw/h200-release-2): calibrate's
/// kernel-end-to-callback measurement again, here, and config.process_release, the profile and
/// spread a prediction beside the calibrated one charges with it. Not applied:
/// results/hw/h200-process-release applied it and predicted no better. None when the platform file
/// has no callback_after_op_ns spread to set it against.
std::optional<hw::ProcessRelease> time_process_release(hw::ValidateConfig& config, int rounds) {
  const std::size_t after_op = platform_field_index(*find_platform_field("callback_after_op_ns"));
  if (config.spread.quantiles[after_op].empty()) return std::nullopt;
  std::vector<double> samples = hw::measure_process_release_path(config.platform.spin_ns_per_cycle, rounds);
  hw::ProcessRelease pr;
  pr.rounds = rounds;
  pr.calibration_ns = double(config.platform.callback_after_op_ns);
  pr.calibration = config.spread.quantiles[after_op];
  pr.measured = spread_quantiles(samples);
  pr.measured_tail = spread_tail(samples);
  auto& [platform, spread] = config.process_release.emplace(config.platform, config.spread);
  spread.quantiles[after_op] = pr.measured;
  spread.tails[after_op] = pr.measured_tail;
  platform.callback_after_op_ns = pr.measured_ns();
  std::cerr << "semaphore release in this process: median " << double(pr.measured_ns()) / 1000 << " us, p90 "
            << PlatformSpread::at(pr.measured, 0.9) / 1000 << " us (calibrated: " << pr.calibration_ns / 1000 << " us, "
            << PlatformSpread::at(pr.calibration, 0.9) / 1000 << " us); predicted apart, not applied\n";
  return pr;
}

/// What validate measures in its own process beside the trials (--release-rounds,
/// --warmup-trials, --release-per-trial); none of it with a --schedule.
struct InProcessTimings {
  int release_rounds = 1000;
  int warmup_trials = 0;
  int release_per_trial = 0;
  int host_cpu = -1;  // --host-cpu: where the trials' thread runs (ValidateConfig::host_cpu)
};

int cmd_validate(const RunConfig& run, const std::string& policies, const std::string& guards, int trials,
                 int sim_samples, const std::string& out_dir, const std::string& command,
                 const std::string& timeline_path, int timeline_trial, const std::string& callback_log_path,
                 const ScheduleRequest* schedule, bool callbacks_first, const InProcessTimings& timings,
                 const std::string& progress, bool pace_band) {
  // The diagnostics are written after every trial: a folder that is not there fails now, not then.
  check_output_path(timeline_path, "--timeline");
  check_output_path(callback_log_path, "--callback-log");
  const Scenario scenario = load_for_run(run);
  const SimOptions resolved = resolve_sim_options(scenario, run);
  hw::ValidateConfig config;
  config.policies = split_list(policies, list_policies());
  config.guards = split_list(guards, list_guards());
  for (const std::string& p : config.policies)
    if (!make_policy(p, resolved.params)) throw std::invalid_argument("unknown policy '" + p + "'");
  for (const std::string& g : config.guards)
    if (!make_guard(g, resolved.params)) throw std::invalid_argument("unknown guard '" + g + "'");
  if (trials < 1) throw std::invalid_argument("--trials must be >= 1");
  if (timeline_trial >= trials) throw std::invalid_argument("--timeline-trial must be below --trials");
  config.timeline_trial = timeline_trial;
  config.callbacks_first = callbacks_first;
  config.trials = trials;
  config.warmup_trials = schedule ? 0 : timings.warmup_trials;
  config.release_rounds_per_trial = schedule ? 0 : timings.release_per_trial;
  config.host_cpu = timings.host_cpu;
  config.sim_samples = sim_samples;
  config.semaphore = resolved.semaphore;
  config.params = resolved.params;
  config.platform = resolved.platform;
  if (run.platform_file) config.spread = load_platform_spread(*run.platform_file);
  // Refused before any GPU is touched: a band asked for and not written would pass unnoticed.
  if (pace_band && schedule) throw std::invalid_argument("--pace-band: not with --schedule (the forced run's host waits on it)");
  if (pace_band)
    hw::require_pace_band_factors(config.spread.host_pace, run.platform_file.value_or("the scenario's defaults"));
  config.pace_band = pace_band;
  // This backend runs every callback through its relay (hw/src/gpu/callback_relay.h): a profile
  // saying otherwise predicts the callback policies under CUDA's own callback instead.
  if (config.platform.callback_relay == 0)
    std::cerr << "allocsim-hw: warning: the platform profile has callback_relay 0, but this backend relays every "
                 "callback; its predictions of the callback policies model CUDA's own callback (results/hw/"
                 "h200-warmup-2/README.md)\n";
  // Every delay is checked against the program before a GPU is touched: a bad schedule is bad
  // input (status 2) and writes nothing.
  const std::vector<hw::ForcedDelay> forced =
      schedule ? hw::plan_forcing(schedule->schedule, scenario.program, schedule->file) : std::vector<hw::ForcedDelay>{};

  hw::ValidateReport report;
  report.device = hw::describe_gpu() + " (HIP on NVIDIA)";
  report.scenario = scenario.name;
  report.command = command;
  report.platform = config.platform;
  report.platform_source = run.platform_file.value_or("scenario defaults");
  report.semaphore = config.semaphore;
  std::cerr << "validate " << scenario.name << " on " << report.device << "\n";
  // The host's pace differs between processes (PlatformSpread::host_pace_reference_ns): the
  // calibration's host-pace workload again, here, reported beside the trials. It is not applied:
  // results/hw/h200-inproc scaled the prediction by it and found it does not follow the validated
  // programs' own pace (it made the calibrated prediction worse). A schedule's run is left alone.
  if (config.spread.host_pace_reference_ns > 0 && !schedule) {
    report.process_pace = hw::measure_process_pace(config.platform, config.spread);
    std::cerr << "host pace in this process: " << report.process_pace->pace() << " (the host-pace workload's median "
              << report.process_pace->busy_ns / 1000 << " us host busy against the calibration's "
              << report.process_pace->reference_ns / 1000 << "; reported, not applied)\n";
  }
  if (timings.release_rounds > 0 && !schedule)
    report.process_release = time_process_release(config, timings.release_rounds);
  // Every trial the GPU runs: each combination's warm-up and counted trials, and a schedule's forced run.
  const std::size_t combinations = config.policies.size() * config.guards.size();
  results::ProgressMeter meter(combinations * std::size_t(config.trials + config.warmup_trials) +
                                   (schedule ? std::size_t(config.trials) : 0),
                               0, std::cerr, results::ProgressMeter::style_named(progress), "validate", "trials");
  config.progress = &meter;
  hw::CallbackLog callback_log;
  callback_log.scenario = scenario.name;
  callback_log.semaphore = config.semaphore;
  callback_log.buffer_names = scenario.program.buffer_names;
  hw::CallbackLog* log = callback_log_path.empty() ? nullptr : &callback_log;
  hw::TimelineFile timeline;
  timeline.scenario = scenario.name;
  timeline.semaphore = config.semaphore;
  timeline.seed = seeds::nth(scenario.seed, std::uint64_t(timeline_trial));
  for (const std::string& p : config.policies)
    for (const std::string& g : config.guards) {
      hw::TimelineCombination* t = nullptr;
      // With a schedule the timeline shows the forced run, the one a schedule is checked by.
      if (!timeline_path.empty() && !schedule) t = &timeline.combinations.emplace_back();
      report.runs.push_back(hw::validate_combination(scenario, p, g, config, t, log));
    }
  if (schedule) {
    hw::ValidateConfig forced_config = config;
    forced_config.forced = forced;
    forced_config.sim_holds = holds_of(schedule->schedule, scenario.program);
    hw::TimelineCombination* t = timeline_path.empty() ? nullptr : &timeline.combinations.emplace_back();
    std::cerr << "the same trials with the schedule's " << forced.size() << " delay(s) forced:\n";
    hw::ScheduleSection section;
    section.file = schedule->file;
    section.schedule = write_schedule(schedule->schedule);
    section.forced = hw::validate_combination(scenario, config.policies.front(), config.guards.front(), forced_config, t);
    report.schedule = std::move(section);
  }
  meter.finish();
  hw::write_validate_files(out_dir, report);
  std::cerr << "wrote " << out_dir << "/validate.json and validate.md\n";
  if (!timeline_path.empty()) {
    hw::write_timeline_file(timeline_path, timeline);
    std::cerr << "wrote " << timeline_path << "\n";
  }
  if (log) {
    hw::write_callback_log(callback_log_path, callback_log);
    std::cerr << "wrote " << callback_log_path << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"allocsim-hw: run allocsim policies on a real GPU (HIP) and compare with the simulator"};
  app.require_subcommand(1);
  std::string out, scenario, policies = "all", guards = "all", platform;
  int iterations = 2000, trials = 10, semaphore = 0;
  std::vector<std::string> sets;
  auto* cal = app.add_subcommand("calibrate", "measure this GPU's platform profile");
  cal->add_option("--out", out, "platform profile JSON to write")->required();
  cal->add_option("--iterations", iterations, "samples per device-side measurement");
  int tail_rounds = 20000;
  cal->add_option("--tail-rounds", tail_rounds,
                  "samples of the callback thread's wake-up, idle and behind a kernel (~1 ms each): their tail above "
                  "p99.9 is drawn, so a stall rarer than 1 in 1,000 needs many")
      ->check(CLI::Range(1000, 1000000));
  int calibration_trials = 2;
  cal->add_option("--trials", calibration_trials, "trials of the calibration workload per policy (host-call costs)")
      ->check(CLI::Range(1, 1000));
  int pace_processes = 8;
  cal->add_option("--pace-processes", pace_processes,
                  "processes the host-pace workload runs in, this one and fresh ones after it, their trials pooled: "
                  "the host's pace moves from one process to the next (hw/apps/host_pace_processes.h)")
      ->check(CLI::Range(1, 64));
  // calibrate's child for --pace-processes: no user calls it, so it is left out of --help.
  auto* pace_child = app.add_subcommand("pace-workload", "")->group("");
  std::string pace_child_out;
  pace_child->add_option("--platform", platform, "platform profile JSON")->required();
  pace_child->add_option("--out", pace_child_out, "file to write the trials' host busy times to")->required();
  auto* val = app.add_subcommand("validate", "run policies x guards on the GPU next to the simulator");
  val->add_option("scenario", scenario, "built-in scenario name or YAML file (with --schedule: the schedule's)");
  val->add_option("--policies", policies, "comma list or all");
  val->add_option("--guards", guards, "comma list or all");
  val->add_option("--trials", trials, "trials per combination");
  int sim_samples = 0;
  val->add_option("--sim-samples", sim_samples,
                  "simulated runs per combination, each with the next seed and, when the --platform file has a "
                  "spread, costs drawn from it (default: one per trial)")
      ->check(CLI::Range(1, 100000));
  val->add_option("--out", out, "output folder")->required();
  val->add_option("--platform", platform,
                  "platform profile JSON (from calibrate); when it records host_pace_reference_ns, the host-pace "
                  "workload first runs here (a few seconds) and validate.json reports the host's pace in this process "
                 "(process_pace; not applied to the prediction)");
  val->add_option("--semaphore", semaphore, "compute semaphore capacity (default: the scenario's)")
      ->check(CLI::Range(1, 1 << 20));
  val->add_option("--set", sets, "key=value scenario/policy parameter");
  std::string timeline_path;
  val->add_option("--timeline", timeline_path,
                  "diagnostic: also write this JSON file with one trial's device-op start/end times of each "
                  "combination (GPU %globaltimer) next to the simulator's for the same seed, with the host's side (each "
                  "callback's stages and each semaphore wait, host clock; every trial records them)");
  std::string callback_log_path;
  val->add_option("--callback-log", callback_log_path,
                  "diagnostic: also write this file with the host's side of every counted trial, as JSON lines: each "
                  "callback's stages (whose, on which stream), each semaphore wait, each allocation and pool free, and "
                  "when in-use bytes reached the trial's peak (host clock; hw/include/allocsim/hw/timeline.h)");
  int timeline_trial = 0;
  val->add_option("--timeline-trial", timeline_trial, "the trial --timeline shows (default 0, the first)")
      ->check(CLI::Range(0, 1 << 20));
  // Lines, never a bar: each combination's result line goes to stderr between them.
  std::string progress = "lines";
  val->add_option("--progress", progress,
                  "trials run so far, on stderr: lines (default; every 10% and at least every 5 s) or off")
      ->check(CLI::IsMember({"lines", "off"}));
  std::string state_lock = "callbacks-first";
  val->add_option("--state-lock", state_lock,
                  "the backend's state lock: callbacks-first (default) lets a waiting policy callback in before the "
                  "host's next call; plain, a plain mutex, starves callbacks while the host launches (as before "
                  "2026-12-01; hw/src/gpu/state_mutex.h, results/hw/h200-callbacks)")
      ->check(CLI::IsMember({"callbacks-first", "plain"}));
  InProcessTimings timings;
  val->add_option("--release-rounds", timings.release_rounds,
                  "semaphore releases timed in this process before the trials (about 0.7 ms each) when the --platform "
                  "file has a callback_after_op_ns spread, and a prediction charging them instead of the calibration's "
                  "(process_release and sim_process_release in validate.json; reported, not applied; 0: none)")
      ->check(CLI::Range(0, 100000));
  val->add_option("--warmup-trials", timings.warmup_trials,
                  "uncounted trials of each combination first, on the same device in this process; a prediction "
                  "draws the host pace from their launch cadence (sim_warmup_paced in validate.json: a pace measured "
                  "before the counted trials; not with --schedule)")
      ->check(CLI::Range(0, 100000));
  val->add_option("--release-per-trial", timings.release_per_trial,
                  "semaphore releases timed after every counted trial, in this process (about 0.9 ms each): the "
                  "release trial by trial (release_after_op_by_trial in validate.json), which repredict --release "
                  "trials draws from; not with --schedule; 0 (default): none")
      ->check(CLI::Range(0, 1000));
  val->add_option("--host-cpu", timings.host_cpu,
                  "pin the thread that runs the trials to this CPU (the relay's and HIP's threads keep theirs); each "
                  "trial's CPU is in validate.json either way (host_cpu_by_trial)")
      ->check(CLI::Range(0, 4095));
  bool pace_band = false;
  val->add_flag("--pace-band", pace_band,
                "also predict at the lowest (p0) and highest (p99) host pace of the --platform file's calibration "
                "over its median (sim_pace_band in validate.json): the band a session's corrupted fractions may lie "
                "in (summarize counts executions within 20 pp of it; two more predictions per combination)");
  std::string schedule_file;
  val->add_option("--schedule", schedule_file,
                  "schedule file (allocsim explore's witness, docs/explore.md): run its scenario, policy, guard, "
                  "semaphore, seed and --set values, --trials trials with its delays forced on the GPU and as many "
                  "without; --policies/--guards/--semaphore/--set may only repeat its values");
  std::string session;
  auto* sum = app.add_subcommand("summarize",
                                 "write DIR/validate.md, the session summary computed from DIR/*/semaphore-*/validate.json "
                                 "(needs no GPU)\n  example: allocsim-hw summarize results/hw/h200");
  sum->add_option("DIR", session, "the folder validate wrote its scenario folders into")->required();
  std::string repredict_out, repredict_platform;
  // The sources' names are repredict.h's; the defaults are the first of each.
  std::map<std::string, hw::PaceSource> pace_names;
  std::vector<std::string> pace_choices;
  for (hw::PaceSource p : hw::kPaceSources) pace_names[pace_choices.emplace_back(hw::pace_source_name(p))] = p;
  std::map<std::string, hw::ReleaseSource> release_names;
  std::vector<std::string> release_choices;
  for (hw::ReleaseSource r : hw::kReleaseSources)
    release_names[release_choices.emplace_back(hw::release_source_name(r))] = r;
  std::string repredict_pace = pace_choices.front(), repredict_release = release_choices.front();
  auto* rep = app.add_subcommand(
      "repredict",
      "predict a session's validate.json files again with the host pace and release their processes measured, "
      "into OUT (needs no GPU; then: allocsim-hw summarize OUT)\n  example: allocsim-hw repredict "
      "results/hw/h200-warmup-2/per-execution --platform results/hw/h200-warmup-2/calibration.json --out /tmp/re");
  rep->add_option("DIR", session, "the folder validate wrote its scenario folders into")->required();
  rep->add_option("--out", repredict_out, "folder to write the files with sim_repredicted into")->required();
  rep->add_option("--platform", repredict_platform, "the session's calibration (the profile the files were predicted with)")
      ->required();
  rep->add_option("--pace", repredict_pace, "host pace: the counted trials' (default), the warm-up's, the calibration's, or the calibration's "
                  "times its host-pace level (calibration-level: the calibrating process's host time on the host-pace "
                  "workload over the simulator's; hw/include/allocsim/hw/host_pace_workload.h)")
      ->check(CLI::IsMember(pace_choices));
  rep->add_option("--release", repredict_release,
                  "semaphore release: the one timed in each validating process before its trials (default), the "
                  "ones timed after each trial (validate --release-per-trial), or the calibration's")
      ->check(CLI::IsMember(release_choices));
  int repredict_blocks = 0;
  rep->add_option("--blocks", repredict_blocks,
                  "the trials in blocks of N: each simulated run draws the trials' pace and release from one block's "
                  "trials only (the runs split into as many blocks, in order); 0 (default): from all the trials")
      ->check(CLI::Range(0, 1 << 20));
  bool repredict_check_sweep = false;
  rep->add_flag("--check-sweep", repredict_check_sweep,
                "predict with the validation kernel's check pass reading each word at its own time (op_check_sweep 1) "
                "though the session's calibration predates that switch");
  std::vector<std::string> repredict_zeroed;
  rep->add_option("--zero", repredict_zeroed,
                  "predict with this platform cost at 0 and without its spread, e.g. wake_first_launch_ns: what it "
                  "changes (repeatable)");
  double repredict_pace_factor = 1;
  rep->add_option("--pace-factor", repredict_pace_factor,
                  "every host-pace draw times F (> 0): the prediction for a host that ran F times slower (F > 1) or "
                  "faster throughout the session (default 1)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double f = std::strtod(text.c_str(), &end);
            return end != text.c_str() && *end == '\0' && std::isfinite(f) && f > 0
                       ? std::string()
                       : "'" + text + "' is not a positive factor (e.g. 0.8 or 1.25)";
          },
          "POSITIVE"));
  bool repredict_pace_band = false;
  rep->add_flag("--pace-band", repredict_pace_band,
                "also predict at the lowest (p0) and highest (p99) host pace of the --platform calibration over its "
                "median (sim_pace_band, bracketing sim_repredicted): the band summarize counts executions within 20 pp of");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (*cal) return cmd_calibrate(out, iterations, tail_rounds, calibration_trials, pace_processes);
    if (*pace_child) return hw::cmd_pace_workload(platform, pace_child_out);
    if (*sum) {
      write_file_atomically(session + "/validate.md", hw::validate_summary_markdown(session));
      std::cerr << "wrote " << session << "/validate.md\n";
      return 0;
    }
    if (*rep) {
      hw::RepredictOptions options;
      options.platform_file = repredict_platform;
      options.pace = pace_names.at(repredict_pace);
      options.release = release_names.at(repredict_release);
      options.blocks = repredict_blocks;
      options.check_sweep = repredict_check_sweep;
      options.zeroed = repredict_zeroed;
      options.pace_factor = repredict_pace_factor;
      options.pace_band = repredict_pace_band;
      hw::repredict_session(session, repredict_out, options,
                            [](const std::string& file) { std::cerr << "predicted " << file << "\n"; });
      std::cerr << "wrote " << repredict_out << "\n";
      return 0;
    }
    RunConfig run;
    run.scenario = scenario;
    if (val->count("--semaphore")) run.semaphore = semaphore;
    run.sets = set_params(parse_set_items(sets));
    if (!platform.empty()) run.platform_file = platform;
    std::optional<ScheduleRequest> request;
    if (!schedule_file.empty())
      request = apply_schedule(schedule_file, run, policies, guards, val->count("--policies") > 0,
                               val->count("--guards") > 0);
    else if (scenario.empty())
      throw std::invalid_argument("validate needs a SCENARIO (or a --schedule file naming one)");
    return cmd_validate(run, policies, guards, trials, sim_samples, out, join_args(argc, argv), timeline_path,
                        timeline_trial, callback_log_path, request ? &*request : nullptr,
                        state_lock == "callbacks-first", timings, progress, pace_band);
  } catch (const hw::HwError& e) {
    std::cerr << "allocsim-hw: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "allocsim-hw: " << e.what() << "\n";
    return 2;
  }
}
