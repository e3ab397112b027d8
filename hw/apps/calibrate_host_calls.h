// The host-side costs of the platform profile, measured where the simulator spends them: inside a
// running program on the GPU. Calibration runs a calibration workload (a scenario validation does
// not use) through the HIP backend under every policy, and sets each host-call field of the
// profile (host_calls.h: launch, event create/destroy/record/query, stream wait, callback enqueue,
// pool alloc/free) to that call's mean host time there, under load (below its 99th percentile;
// a launch: its median, see the .cpp), and release_bookkeeping_ns to a release's host time besides
// its calls, likewise. Device-side costs (spin rate, callback wake-up and
// back-to-back cost, synchronize wake-up) come from calibrate.hip's micro-benchmarks.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "allocsim/core/platform.h"
#include "allocsim/core/platform_spread.h"
#include "allocsim/core/scenario.h"
#include "allocsim/hw/host_pace_workload.h"
#include "allocsim/hw/validate_report.h"

namespace allocsim::hw {

struct HostCallCalibration {
  std::string workload;  // the scenario, policies and trials it ran
  std::vector<std::pair<std::string, double>> counts;  // per field: how many calls it is measured over
  std::vector<std::string> quantiles;  // per field, one line: its distribution over the calls (the log's)
};

/// Runs `workload` `trials` times under each registered policy (guard `none`) with `profile`'s spin
/// rate, then sets the host-call fields of `profile` and release_bookkeeping_ns as above.
/// Throws HwError when a field had no call to measure.
/// Each field's spread (its quantiles over the workload's calls) goes to `spread`.
HostCallCalibration calibrate_host_calls(PlatformProfile& profile, PlatformSpread& spread, const Scenario& workload,
                                         int trials);

/// signal_wakeup_ns and its spread: the host thread asleep on a condition variable (as the HIP
/// backend's semaphore acquire and OOM wait are) until another thread notifies it, from the notify
/// to the waiter running, `samples` times. Needs no GPU. Returns the log line with its quantiles.
std::string calibrate_signal_wakeup(PlatformProfile& profile, PlatformSpread& spread, int samples);

/// The host-pace workload's host busy time of each trial in this process but the first, which
/// carries the process's first-use costs; sorted.
std::vector<double> pace_workload_busy(const PlatformProfile& profile);

/// The host thread's pace from trial to trial (PlatformSpread::host_pace): runs the host-pace
/// workload in `processes` processes (host_pace_processes.h), pools their trials, and sets
/// spread.host_pace to the quantiles of each trial's host busy time over the pooled median trial's,
/// and spread.host_pace_reference_ns to that median. Returns the log line, with each process's
/// median over the pooled one.
std::string calibrate_host_pace(PlatformSpread& spread, const PlatformProfile& profile, int processes);

/// The host-pace workload again in this process (validation's, before its trials): its median host
/// busy time here over spread.host_pace_reference_ns, the calibrating process's.
ProcessPace measure_process_pace(const PlatformProfile& profile, const PlatformSpread& spread);

}  // namespace allocsim::hw
