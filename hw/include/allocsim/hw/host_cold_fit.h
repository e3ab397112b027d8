// How much slower the host runs right after it sleeps (issue 17): calibration's fit of the
// profile's host_cold_window_ns and host_cold_factor (platform.h), and validation's check of them.
//
// Why: on the H200 host the same program's calls cost up to twice as much at semaphore 1, where the
// host sleeps on the compute semaphore before every execution, as at 32, where it never does
// (results/hw/h200-relay: an event create 1962 ns against 858, a pool allocate, our own code, 475
// against 282; the host's enqueue of one conv-autotune execution took 63 us against 40 in
// results/hw/h200-cold's timelines). A thread that sleeps on a condition variable leaves its core
// idle, and what it finds when it wakes is paid by whatever it runs next. A synchronize is not a
// sleep: the HIP backend polls it.
//
// The HIP backend stamps every timed host cost with the time since the host last woke from such a
// sleep (TrialStats::call_since_sleep). Calibration runs one workload twice: where the host seldom
// sleeps (the warm run, which the profile's costs come from) and where it sleeps before every
// execution (the cold run). Each kind of cost in the cold run is set against the same kind in the
// warm run, by time since the wake-up.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "allocsim/core/platform.h"

namespace allocsim::hw {

/// call_since_sleep of a cost paid before any sleep of its trial.
inline constexpr std::uint32_t kNeverSlept = 0xffffffff;
/// A wait on a condition variable or mutex that lasted this long slept: one that did not block
/// returns in well under a microsecond, and a wake-up from a real sleep takes several.
inline constexpr TimeNs kSleptMinNs = 5000;

/// The samples of one kind of host cost: each sample's ns and its time since the last sleep.
struct CostSamples {
  std::string name;  // the platform field it calibrates
  std::vector<std::uint32_t> ns, since_sleep;
  bool by_median = false;  // the field is its median (launches), else its mean below p99
};

/// The profile's value of a cost from its samples: the median, or the mean of the samples below the
/// 99th percentile (the rest are preemptions and page faults, up to ms, that a few hundred thousand
/// calls do not average out). Sorts `v`; 0 when empty.
double cost_estimate(std::vector<std::uint32_t>& v, bool by_median);

/// The samples of `kind` begun at least `window_ns` after a wake-up (or with none before them), or
/// (inside = true) those begun within it.
std::vector<std::uint32_t> samples_after(const CostSamples& kind, TimeNs window_ns, bool inside = false);

struct HostColdFit {
  TimeNs window_ns = 0;  // 0: no slowdown measured
  double factor = 1;
  std::uint64_t cold_samples = 0;  // the cold run's samples inside the window
  std::vector<std::string> lines;  // the evidence, for calibrate's log: one line per window bin
};

/// The fit. `warm` and `cold` hold the same kinds in the same order. Bins of time since the
/// wake-up (10, 20, 40 ... 640 us): in each, the median over the cold run's samples of sample / its
/// kind's median in the warm run. The window ends with the last of the leading bins whose median
/// is at least 1.1 (and that hold 20 samples or more); the factor is the cold run's cost inside
/// the window over what the same calls cost warm: the sum over kinds of their count inside times
/// their estimate there, over the same with their warm estimate.
HostColdFit fit_host_cold(const std::vector<CostSamples>& warm, const std::vector<CostSamples>& cold);

/// A program's host costs against the profile the simulator charged them: inside the profile's
/// window after a wake-up and past it, the costs' estimate over the profile's value, weighted as
/// the fit weighs them. The simulator charges host_cold_factor inside and 1 past it.
struct HostColdCheck {
  double inside_ratio = 0, outside_ratio = 0;  // 0: no sample there
  std::uint64_t inside_samples = 0, outside_samples = 0;
};
HostColdCheck check_host_cold(const std::vector<CostSamples>& kinds, const PlatformProfile& profile);

}  // namespace allocsim::hw
