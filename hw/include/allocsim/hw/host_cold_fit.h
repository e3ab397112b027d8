// How much slower the host runs right after it sleeps (issue 17): calibration's fit of the
// profile's host_cold_window_ns and host_cold_factor (platform.h) to the host calls of its workload.
//
// Why: on the H200 host the same program's calls cost up to twice as much at semaphore 1, where the
// host sleeps on the compute semaphore before every execution, as at 32, where it never does
// (results/hw/h200-relay: an event create 1962 ns against 858, a pool allocate, our own code, 475
// against 282). A thread that sleeps on a condition variable leaves its core idle; what it finds when
// it wakes (a slower clock, cold caches) is paid by whatever it runs next. A synchronize does not
// count: the HIP backend's polls it without sleeping, and host-sync's calls cost what the others' do.
//
// The HIP backend stamps every timed call with the time since the host last woke from such a sleep
// (TrialStats::call_since_sleep). The fit compares each kind of call after a sleep with the same kind
// long after one, and finds the window after a wake-up inside which calls ran slower, and by what
// factor, as one law for every kind of host cost.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "allocsim/core/types.h"

namespace allocsim::hw {

/// call_since_sleep of a call made before any sleep of its trial.
inline constexpr std::uint32_t kNeverSlept = 0xffffffff;
/// A wait on a condition variable or mutex that lasted this long slept: one that did not block
/// returns in well under a microsecond, and a wake-up from a real sleep takes several.
inline constexpr TimeNs kSleptMinNs = 5000;
/// Calls this long after a wake-up, or with none before them, are the warm reference.
inline constexpr std::uint32_t kColdHorizonNs = 1'280'000;

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

struct HostColdFit {
  TimeNs window_ns = 0;  // 0: no slowdown measured
  double factor = 1;
  std::uint64_t cold_samples = 0, warm_samples = 0;
  std::vector<std::string> lines;  // the evidence, for calibrate's log: one line per window bin
};

/// The fit: bins of time since the wake-up (10, 20, 40 ... 640 us); in each, the median over its
/// samples of sample / its kind's median at or past kColdHorizonNs. The window ends with the last of
/// the leading bins whose median is at least 1.1 (and that hold 20 samples or more); the factor is
/// the window's cost over the cost its calls would have had warm: the sum over kinds of their count
/// in the window times their estimate there, over the same with their estimate past it.
HostColdFit fit_host_cold(const std::vector<CostSamples>& kinds);

/// The samples of `kind` at or past `window_ns` after a wake-up (or with none before): what the
/// profile charges outside the window.
std::vector<std::uint32_t> warm_part(const CostSamples& kind, TimeNs window_ns);

}  // namespace allocsim::hw
