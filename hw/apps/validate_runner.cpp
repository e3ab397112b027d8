// validate_combination: trials on the GPU through the shared Interpreter, then simulate() seeds.
#include "validate_runner.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>

#include "allocsim/core/policy.h"
#include "allocsim/core/seeds.h"
#include "allocsim/engine/interpreter.h"
#include "allocsim/engine/execution_units.h"
#include "allocsim/hw/corruption_pairs.h"
#include "allocsim/hw/hw_device.h"
#include <pthread.h>
#include <sched.h>

#include "allocsim/hw/cpu_probe.h"
#include "allocsim/hw/cpu_steal.h"
#include "allocsim/hw/launch_cadence.h"
#include "allocsim/hw/sim_prediction.h"

namespace allocsim::hw {
namespace {

/// A trial's peak beside its callbacks' waits on the relay's thread.
CallbackTrial callback_trial(const TrialStats& s) {
  CallbackTrial t;
  t.peak_bytes_in_use = s.peak_bytes_in_use;
  t.callbacks = s.callback_delay_samples.size();
  for (std::uint32_t w : s.callback_lock_wait_samples) {
    t.lock_wait_max_ns = std::max(t.lock_wait_max_ns, double(w));
    t.lock_wait_total_ns += double(w);
  }
  std::vector<double> delay(s.callback_delay_samples.begin(), s.callback_delay_samples.end());
  t.delay_median_ns = upper_median(delay);
  t.delay_max_ns = *std::max_element(delay.begin(), delay.end());
  std::vector<double> hold(s.callback_hold_samples.begin(), s.callback_hold_samples.end());
  t.hold_median_ns = upper_median(hold);
  for (double h : hold) t.hold_total_ns += h;
  t.instrument_ns = double(s.callback_instrument_ns);
  t.host_lock_wait_ns = double(s.host_lock_wait_ns);
  for (std::uint32_t r : s.callback_reach_samples) t.reach_max_ns = std::max(t.reach_max_ns, double(r));
  for (std::uint32_t w : s.callback_wake_samples) t.wake_max_ns = std::max(t.wake_max_ns, double(w));
  t.wall_ns = double(s.wall_ns);
  return t;
}

}  // namespace

namespace {

/// Pins the calling thread to one CPU for its lifetime (cpu >= 0), then gives it its CPUs back.
/// Throws HwError when the CPU cannot be had (not online, or outside the process's taskset).
class HostThreadPin {
 public:
  explicit HostThreadPin(int cpu) : pinned_(cpu >= 0) {
    if (!pinned_) return;
    const std::string refused = "--host-cpu " + std::to_string(cpu) + ": this thread cannot run on that CPU";
    if (cpu >= CPU_SETSIZE) throw HwError(refused);
    pthread_getaffinity_np(pthread_self(), sizeof before_, &before_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) throw HwError(refused);
  }
  ~HostThreadPin() {
    if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof before_, &before_);
  }
  HostThreadPin(const HostThreadPin&) = delete;
  HostThreadPin& operator=(const HostThreadPin&) = delete;

 private:
  bool pinned_;
  cpu_set_t before_{};
};

}  // namespace

TrialStats run_trial(HwDevice& device, const Scenario& scenario, const std::string& policy_name,
                     const std::string& guard_name, const Params& params, std::uint64_t seed) {
  auto policy = make_policy(policy_name, params);
  auto guard = make_guard(guard_name, params);
  if (!policy || !guard) throw HwError("unknown policy or guard: " + policy_name + " / " + guard_name);
  device.begin_trial(seed);
  Interpreter interp(scenario.program, device, *policy, *guard);
  Plan plan;
  const auto loop_start = std::chrono::steady_clock::now();
  const TimeNs waits_at_start = device.host_wait_ns();
  TimeNs cadence = 0, last_launch = -1, waits_at_last_launch = 0;
  while (interp.next(plan)) {
    const HostOp* op = interp.current_op();
    const bool release = op && op->kind == HostOpKind::Release;
    // The preexisting allocations' plan comes before op 0 and is no host op of a schedule.
    const std::size_t position = interp.position();
    if (position != Interpreter::npos) device.begin_host_op(position);
    if (release) device.begin_release_timing();
    device.execute(std::move(plan));
    if (release) device.end_release_timing();
    if (position != Interpreter::npos) device.end_host_op(position);
    plan.clear();
    if (op && (op->kind == HostOpKind::Kernel || op->kind == HostOpKind::Memset || op->kind == HostOpKind::Copy)) {
      const TimeNs now =
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - loop_start).count();
      const TimeNs waits = device.host_wait_ns();
      if (last_launch >= 0 && waits - waits_at_last_launch <= kWaitedGapNs) cadence += now - last_launch;
      last_launch = now, waits_at_last_launch = waits;
    }
  }
  interp.finish();
  const TimeNs loop_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - loop_start).count();
  const TimeNs busy_ns = loop_ns - (device.host_wait_ns() - waits_at_start);
  TrialStats stats = device.end_trial();
  stats.host_busy_ns = busy_ns;
  stats.host_cadence_ns = cadence;
  return stats;
}

ValidateRun validate_combination(const Scenario& scenario, const std::string& policy, const std::string& guard,
                                 const ValidateConfig& config, TimelineCombination* timeline,
                                 CallbackLog* callback_log) {
  ValidateRun run;
  run.policy = policy;
  run.guard = guard;
  run.trials = config.trials;
  const ExecutionUnits units = execution_units(scenario.program);
  run.executions = units.units;
  run.corrupted_by_execution.assign(std::size_t(units.units), 0);
  CorruptionPairTally pairs(scenario.program, units);
  HwDeviceOptions options;
  options.platform = config.platform;
  options.semaphore = config.semaphore;
  options.params = config.params;
  options.wait_timeout_ns = 5'000'000'000;  // a starving combination fails in 5 s, not 20
  options.record_timeline = timeline != nullptr;
  options.record_callbacks = callback_log != nullptr;
  options.callbacks_first = config.callbacks_first;
  options.forced = config.forced;
  for (const ForcedDelay& f : config.forced) {
    ForcedDelayResult& r = run.forced_delays.emplace_back();
    r.hold = describe(f.delay.hold);
    r.until = describe(f.delay.until);
    r.held_ns = f.delay.held_ns;
  }
  if (timeline) {
    timeline->policy = policy;
    timeline->guard = guard;
    timeline->trial = config.timeline_trial;
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> ns_per_free, instrument_per_free, host_busy;
  {
    std::unique_ptr<HwDevice> device = make_hip_device(scenario, options);
    const HostThreadPin pin(config.host_cpu);  // after the device: its threads keep their CPUs
    std::optional<ReleasePathTimer> release_timer;
    if (config.release_rounds_per_trial > 0) release_timer.emplace(config.platform.spin_ns_per_cycle);
    // The warm-up: the same program first, uncounted, with seeds no counted trial uses. Only each
    // one's host cadence is kept (the pace of sim_warmup_paced).
    for (int w = 0; w < config.warmup_trials && run.error.empty(); ++w) {
      try {
        const TrialStats s = run_trial(*device, scenario, policy, guard, config.params,
                                       seeds::nth(scenario.seed, std::uint64_t(config.trials + w)));
        run.warmup_host_cadence_by_trial.push_back(double(s.host_cadence_ns));
        ++run.warmup_trials;
        if (config.progress) config.progress->tick();
      } catch (const HwTimeout& e) {
        run.error = std::string("warm-up trial ") + std::to_string(w) + ": " + e.what();
      }
    }
    if (!run.error.empty()) run.trials = 0;
    // Every trial runs the one program loaded for this validate run's seed, so the GPU and the
    // simulator compare the same program; trial t's run-time draws use the t-th seed.
    for (int t = 0; t < run.trials; ++t) {
      TrialStats s;
      const std::optional<CpuTicks> ticks_before = read_cpu_ticks();
      run.host_cpu_by_trial.push_back(sched_getcpu());
      try {
        s = run_trial(*device, scenario, policy, guard, config.params,
                      seeds::nth(scenario.seed, std::uint64_t(t)));
      } catch (const HwTimeout& e) {
        run.error = e.what();
        run.trials = t;
        break;
      }
      if (config.progress) config.progress->tick();
      run.cpu_probe_ns_by_trial.push_back(double(time_cpu_probe()));
      if (const std::optional<CpuTicks> ticks_after = read_cpu_ticks(); ticks_before && ticks_after) {
        run.cpu_ticks_by_trial.push_back(ticks_after->total - ticks_before->total);
        run.steal_ticks_by_trial.push_back(ticks_after->steal - ticks_before->steal);
      }
      // Between this trial and the next, so the trial itself runs as without it.
      if (release_timer) run.release_after_op_by_trial.push_back(release_timer->after_op(config.release_rounds_per_trial));
      run.aliased += s.aliased ? 1 : 0;
      run.corrupted += s.corrupted_words > 0 ? 1 : 0;
      run.corrupted_words += s.corrupted_words;
      std::vector<int>& corrupted_here = run.corrupted_executions_by_trial.emplace_back();
      for (int e : corrupted_units(units, s.foreign_by_alloc)) {
        corrupted_here.push_back(e);
        ++run.corrupted_executions;
        ++run.corrupted_by_execution[std::size_t(e)];
        if (timeline && t == config.timeline_trial) timeline->corrupted_executions.push_back(e);
      }
      pairs.add_trial(s.foreign_sources);
      for (std::size_t k = 0; k < s.forced.size() && k < run.forced_delays.size(); ++k) {
        ForcedDelayResult& r = run.forced_delays[k];
        if (s.forced[k].timed_out) r.timed_out_trials.push_back(t);
        if (!s.forced[k].held) r.not_held_trials.push_back(t);
        if (!s.forced[k].signalled) r.not_signalled_trials.push_back(t);
      }
      if (callback_log)
        callback_log->trials.push_back(CallbackLogTrial{policy, guard, t, s.peak_bytes_in_use, s.peak_in_use_at_ns,
                                                        s.timeline_callbacks, s.timeline_semaphore_waits,
                                                        std::move(s.timeline_memory)});
      if (timeline && t == config.timeline_trial) {
        timeline->corrupted_words = s.corrupted_words;
        timeline->dropped = s.timeline_dropped;
        timeline->ops = std::move(s.timeline);
        timeline->callbacks = std::move(s.timeline_callbacks);
        timeline->semaphore_waits = std::move(s.timeline_semaphore_waits);
      }
      run.stale_trials += s.stale_words > 0 ? 1 : 0;
      run.stale_words += s.stale_words;
      run.peak_bytes_in_use = std::max(run.peak_bytes_in_use, s.peak_bytes_in_use);
      run.peak_bytes_in_use_min =
          t == 0 ? s.peak_bytes_in_use : std::min(run.peak_bytes_in_use_min, s.peak_bytes_in_use);
      run.frees = s.releases;
      host_busy.push_back(double(s.host_busy_ns));
      run.host_cadence_by_trial.push_back(double(s.host_cadence_ns));
      if (!s.callback_delay_samples.empty()) run.callback_trials.push_back(callback_trial(s));
      if (s.releases) {
        ns_per_free.push_back(double(s.release_host_ns) / double(s.releases));
        instrument_per_free.push_back(double(s.release_instrument_ns) / double(s.releases));
      }
      for (std::size_t i = 0; i < run.host_calls.size(); ++i) {
        run.host_calls[i].calls += s.release_calls[i].calls;
        run.host_calls[i].ns += s.release_calls[i].ns;
        run.host_calls_all[i].calls += s.calls[i].calls;
        run.host_calls_all[i].ns += s.calls[i].ns;
        run.call_ns_by_trial[i].push_back(double(s.calls[i].ns));
      }
    }
  }
  run.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  if (run.trials > 0) run.corrupted_rate = double(run.corrupted_executions) / (double(run.trials) * run.executions);
  run.host_ns_per_free = upper_median(ns_per_free);
  run.instrument_ns_per_free = upper_median(instrument_per_free);
  run.host_busy_ns = upper_median(host_busy);
  run.host_cadence_ns = upper_median(run.host_cadence_by_trial);
  PredictionSetup setup;
  setup.policy = policy;
  setup.guard = guard;
  setup.semaphore = config.semaphore;
  setup.params = config.params;
  setup.holds = config.sim_holds;  // a forced run's prediction replays the same schedule
  setup.runs = std::max(1, config.sim_samples > 0 ? config.sim_samples : config.trials);
  setup.timeline_run = config.timeline_trial;
  run.sim = predict(scenario, setup, config.platform, config.spread, units, &pairs, timeline);
  if (config.process_release)
    run.sim_process_release =
        predict(scenario, setup, config.process_release->first, config.process_release->second, units);
  if (config.pace_band && config.forced.empty())
    if (const std::optional<PaceBandFactors> factors = pace_band_factors(config.spread.host_pace))
      run.sim_pace_band = predict_pace_band(scenario, setup, config.platform, config.spread, units, *factors);
  run.corruption_pairs = pairs.pairs();
  // The host's pace on this program, from the counted trials and from the warm-up's (none for a
  // forced run, whose host waits on the schedule).
  auto paced_by = [&](const std::vector<double>& cadences) -> std::optional<SimPrediction> {
    PlatformSpread paced = config.spread;
    paced.host_pace = host_pace_of(cadences, run.sim.host_cadence_ns);
    if (!config.forced.empty() || paced.host_pace.empty()) return std::nullopt;
    return predict(scenario, setup, config.platform, paced, units);
  };
  run.sim_host_paced = paced_by(run.host_cadence_by_trial);
  run.sim_warmup_paced = paced_by(run.warmup_host_cadence_by_trial);
  if (!config.quiet && !config.forced.empty()) {
    std::cerr << "  " << policy << " / " << guard << " forced: hw corrupted " << run.corrupted << "/" << run.trials
              << " trials, " << run.corrupted_executions << "/" << run.trials * run.executions
              << " executions; sim replay " << run.sim.manifest_executions << "/" << run.sim.runs * run.executions
              << " executions" << (run.error.empty() ? "" : ", ERROR " + run.error) << "\n";
    for (const ForcedDelayResult& d : run.forced_delays)
      std::cerr << "    " << d.hold << " until " << d.until << ": timed out in " << d.timed_out_trials.size() << "/"
                << run.trials << " trials\n";
    return run;
  }
  if (!config.quiet)
    std::cerr << "  " << policy << " / " << guard << ": hw corrupted " << run.corrupted << "/" << run.trials
              << " trials, " << run.corrupted_executions << "/" << run.trials * run.executions << " executions"
              << " (stale own " << run.stale_trials << "), aliased " << run.aliased << ", sim manifest "
              << run.sim.manifest_executions << "/" << run.sim.runs * run.executions << " executions, latent "
              << run.sim.latent
              << (run.sim_host_paced ? ", host-paced sim " + std::to_string(run.sim_host_paced->manifest_executions) + "/" +
                                           std::to_string(run.sim_host_paced->runs * run.executions) + " (pace p50 " +
                                           std::to_string(PlatformSpread::at(run.sim_host_paced->host_pace, 0.5)).substr(0, 5) + ")"
                                     : std::string())
              << (run.sim_warmup_paced ? ", warm-up-paced sim " + std::to_string(run.sim_warmup_paced->manifest_executions) + " (pace p50 " +
                                             std::to_string(PlatformSpread::at(run.sim_warmup_paced->host_pace, 0.5)).substr(0, 5) + ")"
                                       : std::string())
              << (run.sim_pace_band ? ", pace-band sim " + std::to_string(run.sim_pace_band->low.manifest_executions) +
                                          " to " + std::to_string(run.sim_pace_band->high.manifest_executions)
                                    : std::string())
              << ", peak hw "
              << run.peak_bytes_in_use << " sim " << run.sim.peak_bytes_in_use << ", host ns/free "
              << run.host_ns_per_free << " sim " << run.sim.host_ns_per_free << (run.error.empty() ? "" : ", ERROR " + run.error) << "\n";
  return run;
}

}  // namespace allocsim::hw
