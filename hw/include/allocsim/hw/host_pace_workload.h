// The calibration's workloads, which validation does not run, and the host-pace level: how much
// slower (or faster) the calibrating processes' host ran the host-pace workload than the simulator
// charges for it under the profile that calibration measured. Needs no GPU: calibrate runs the
// workloads on the GPU (hw/apps/calibrate_host_calls.h), repredict uses the level on committed files.
#pragma once
#include "allocsim/core/platform.h"
#include "allocsim/core/platform_spread.h"
#include "allocsim/core/scenario.h"

namespace allocsim::hw {

/// The workload the host-call costs are measured in: a built-in scenario that validation does not
/// run, so the validated scenarios test the profile rather than fit it.
inline constexpr const char* kCalibrationWorkload = "training-churn";
/// The host-pace workload: the calibration workload cut to this many steps (about a millisecond of
/// host time a trial, the span over which a validated program's host races its device), run this
/// many times under `immediate` with guard `none` at semaphore 32.
inline constexpr int kPaceWorkloadSteps = 4;
inline constexpr int kPaceWorkloadTrials = 200;
inline constexpr int kPaceWorkloadSemaphore = 32;

/// The calibration workload, or (pace = true) the host-pace workload.
Scenario calibration_workload(bool pace);

/// The host-pace level (PlatformSpread::host_pace_level): spread.host_pace_reference_ns (the
/// calibrating processes' median host busy time on the host-pace workload) over the simulator's
/// median host busy time for the same workload, `runs` runs under `profile` with costs drawn from
/// `spread` but no host pace and no level. The per-call costs are each measured alone, and on the
/// H200 their sum undercharged or overcharged the workload by 0.72 to 1.24 times from session to
/// session (results/hw/calibration-level/per-execution.md); the level is what scaling the host's
/// pace by it corrects.
/// Throws std::invalid_argument when the spread records no reference.
double host_pace_level(const PlatformProfile& profile, const PlatformSpread& spread, int runs = kPaceWorkloadTrials);

}  // namespace allocsim::hw
