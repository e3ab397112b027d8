// Runs one scenario under each (policy, guard) on the GPU and in the simulator, side by side.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "allocsim/engine/step_schedule.h"

#include "allocsim/core/scenario.h"
#include "allocsim/hw/hw_device.h"
#include "allocsim/hw/timeline.h"
#include "allocsim/hw/validate_report.h"
#include "allocsim/results/progress.h"

namespace allocsim::hw {

struct ValidateConfig {
  std::vector<std::string> policies, guards;
  int trials = 10;
  int sim_samples = 0;  // simulated runs per combination (seeds); 0: one per trial
  int semaphore = 32;
  Params params;  // scenario params + --set values (policies read them too)
  PlatformProfile platform;
  PlatformSpread spread;  // the --platform file's; non-empty: each simulated run draws its costs from it
  bool quiet = false;
  int timeline_trial = 0;  // the trial (and simulated run, same seed) a --timeline file shows
  std::vector<ForcedDelay> forced;  // --schedule: delays forced in every trial (schedule_forcing.h)
  std::vector<StepHold> sim_holds;  // --schedule: the same delays, in the simulator's prediction
  bool callbacks_first = true;      // --state-lock: HwDeviceOptions::callbacks_first
  // --warmup-trials: trials of the same program run first on the same device, in this process, and
  // not counted; their host pace is the one ValidateRun::sim_warmup_paced draws from.
  int warmup_trials = 0;
  // --release-per-trial: release rounds timed after every counted trial (ReleasePathTimer), kept
  // as ValidateRun::release_after_op_by_trial; 0: none.
  int release_rounds_per_trial = 0;
  // --host-cpu: the thread running the trials pinned to this CPU through the warm-up and counted
  // trials (the relay's and HIP's threads, made before, keep theirs); -1: not pinned.
  int host_cpu = -1;
  // validate timed the release path in its own process: `platform` and `spread` with that
  // instead of the calibration's callback_after_op_ns, for ValidateRun::sim_process_release.
  std::optional<std::pair<PlatformProfile, PlatformSpread>> process_release;
  // --pace-band: `sim` again at the two ends of the calibration's host pace
  // (ValidateRun::sim_pace_band), where `spread` has a host pace and no delay is forced.
  bool pace_band = false;
  // --progress: ticked once per trial run, warm-up and counted; null: none.
  results::ProgressMeter* progress = nullptr;
};

/// One trial of `scenario` on `device`: a fresh policy, guard and interpreter; release plans timed.
TrialStats run_trial(HwDevice& device, const Scenario& scenario, const std::string& policy_name,
                     const std::string& guard_name, const Params& params, std::uint64_t seed);

/// One combination on hardware (fresh device per combination) plus its simulator prediction.
/// Throws HwError for HIP/device failures; a timed-out wait is recorded in the run's `error`.
/// `timeline` non-null: the device records op times (every trial, so all trials run alike) and
/// trial `config.timeline_trial`'s, with the simulator's spans for the same seed, go into
/// *timeline (timeline.h).
/// `callback_log` non-null: every trial keeps its host side (HwDeviceOptions::record_callbacks),
/// appended to *callback_log, one CallbackLogTrial per counted trial.
ValidateRun validate_combination(const Scenario& scenario, const std::string& policy, const std::string& guard,
                                 const ValidateConfig& config, TimelineCombination* timeline = nullptr,
                                 CallbackLog* callback_log = nullptr);

}  // namespace allocsim::hw
