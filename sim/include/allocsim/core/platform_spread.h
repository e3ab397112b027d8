// A platform profile's spread (issue 17): for each cost, its distribution as calibration measured
// it, given by quantiles at fixed levels. The profile (platform.h) holds one value per cost, which a
// single run charges every time; a run given a spread draws each charge from its cost's
// distribution instead, through the run's Chooser (same seed, same draws), so `--samples` runs a
// program under the timing variation the GPU showed. spin_ns_per_cycle's spread is the kernel
// duration's: each device op's duration is scaled by (draw / the profile's spin_ns_per_cycle).
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "allocsim/core/platform.h"

namespace allocsim {

/// The quantile levels a spread is given at: the minimum, p10, p25, p50, p75, p90, p99. A draw above
/// p99 is p99: the top percent of a host call's samples are preemptions and page faults (up to ms),
/// which the profile's values leave out as well (hw/apps/calibrate_host_calls.cpp); drawn, that
/// 1% alone raised the simulated host cost per free by 30-60% over the hardware's.
inline constexpr std::array<double, 7> kSpreadLevels = {0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99};

/// A cost's tail above p99: its values at levels spread evenly from p99.9 to the largest sample
/// (1.0), as many as it has (at least 2; calibrate writes kTailPoints, files from before it 2:
/// p99.9 and the largest). Only the callback thread's costs have one: a free waits for that thread,
/// and one wake-up of it several hundred microseconds long (its p99.9 was 0.33-0.52 ms on two H200
/// hosts, results/hw/h200-lock*) holds a trial's later frees back by as much; capped at p99, no
/// simulated run had such a trial, while the hardware's highest peaks of the callback policies did.
/// The points between p99.9 and the largest keep a rare stall of several ms as rare as calibration
/// saw it: drawn linearly from p99.9 straight to the largest, the top 0.1% of draws would spread
/// evenly up to it. The host's costs keep the p99 cap above.
inline constexpr double kTailFrom = 0.999;
inline constexpr std::size_t kTailPoints = 11;  // p99.9, p99.91, ..., p99.99, the largest

/// The level of point `i` of a tail of `n` points.
inline double tail_level(std::size_t i, std::size_t n) {
  return i + 1 >= n ? 1.0 : kTailFrom + (1.0 - kTailFrom) * double(i) / double(n - 1);
}

struct PlatformSpread {
  /// By kPlatformFields index: empty (the cost is fixed) or kSpreadLevels.size() ascending values.
  std::array<std::vector<double>, kPlatformFields.size()> quantiles;
  /// The host thread's pace (empty: none), at kSpreadLevels: a trial's host busy time over the
  /// median trial's, on a short calibration workload. The host does not slow down one call at a
  /// time: on the H200 a whole trial's host ran 1.3 or 2 times slower than the others' while each
  /// call's own spread stayed as it was (results/hw/h200-edge). So a run draws its pace once and
  /// scales every cost the host thread pays (CostPayer::host) by it.
  std::vector<double> host_pace;
  /// The host-pace workload's median host busy time in the process that calibrated, in ns (0: not
  /// recorded). The host's pace differs between processes on one machine by more than host_pace
  /// spreads within one (results/hw/h200-process-pace/analysis.md): validation runs the same
  /// workload in its own process and reports the ratio of the two without applying it, as it did
  /// not follow the validated programs' pace (results/hw/h200-inproc; hw/apps/calibrate_host_calls.h).
  double host_pace_reference_ns = 0;
  /// The host's level: how much slower (above 1) or faster the host ran the host-pace workload than
  /// the simulator charges for it from the per-call costs (hw/include/allocsim/hw/host_pace_workload.h);
  /// 1 where the file records none. A run's pace is this times its draw from host_pace. The costs are
  /// each timed alone, and on the H200 their sum mischarged the workload by 0.72 to 1.24 times from
  /// session to session (results/hw/calibration-level/per-execution.md), which no draw around 1 corrects.
  double host_pace_level = 1;
  /// By kPlatformFields index: empty (capped at p99) or at least 2 ascending values at tail_level,
  /// the first at least the field's p99.
  std::array<std::vector<double>, kPlatformFields.size()> tails;

  bool empty() const {
    auto none = [](const auto& fields) {
      return std::all_of(fields.begin(), fields.end(), [](const auto& q) { return q.empty(); });
    };
    return host_pace.empty() && host_pace_reference_ns == 0 && host_pace_level == 1 && none(quantiles) && none(tails);
  }
  /// The value at probability `u` in [0, 1): linear between the quantiles around it (the inverse
  /// of a piecewise-linear CDF through them); p99 above the last level.
  static double at(const std::vector<double>& q, double u) {
    for (std::size_t i = 1; i < kSpreadLevels.size(); ++i)
      if (u <= kSpreadLevels[i]) {
        const double lo = kSpreadLevels[i - 1], hi = kSpreadLevels[i];
        const double t = hi > lo ? (u - lo) / (hi - lo) : 0;
        return q[i - 1] + t * (q[i] - q[i - 1]);
      }
    return q.back();
  }
  /// As at(q, u), and above p99 linear through `tail`'s points (tail_level) when there is one.
  static double at(const std::vector<double>& q, const std::vector<double>& tail, double u) {
    if (tail.empty() || u <= kSpreadLevels.back()) return at(q, u);
    double lo = kSpreadLevels.back(), below = q.back();
    for (std::size_t i = 0; i < tail.size(); ++i) {
      const double level = tail_level(i, tail.size());
      if (u <= level) return below + (u - lo) / (level - lo) * (tail[i] - below);
      lo = level;
      below = tail[i];
    }
    return tail.back();
  }
};

/// The quantiles of the pace a run draws from `pace` under `level` (PlatformSpread::host_pace_level):
/// each times the level, as the run applies it.
inline std::vector<double> levelled_pace(std::vector<double> pace, double level) {
  for (double& q : pace) q *= level;
  return pace;
}

/// The key host_pace has in a platform file's "spread" object, beside the fields' names.
inline constexpr const char* kHostPaceKey = "host_pace";
/// The platform file's key beside "spread" for the tails: field name -> [p99.9, max].
inline constexpr const char* kSpreadTailKey = "spread_tail";
/// The platform file's key beside "spread" for host_pace_reference_ns.
inline constexpr const char* kHostPaceReferenceKey = "host_pace_reference_ns";
/// The platform file's key beside "spread" for host_pace_level.
inline constexpr const char* kHostPaceLevelKey = "host_pace_level";

/// The index of `f` in kPlatformFields.
inline std::size_t platform_field_index(const PlatformField& f) { return std::size_t(&f - kPlatformFields.data()); }

namespace detail {
/// The sample at `level` of sorted `samples` (nearest rank).
inline double sample_at(const std::vector<double>& samples, double level) {
  return samples[std::min(samples.size() - 1, std::size_t(level * double(samples.size() - 1) + 0.5))];
}
}  // namespace detail

/// The quantiles at kSpreadLevels of `samples` (sorted in place); empty for no samples.
inline std::vector<double> spread_quantiles(std::vector<double>& samples) {
  std::vector<double> q;
  if (samples.empty()) return q;
  std::sort(samples.begin(), samples.end());
  for (double level : kSpreadLevels) q.push_back(detail::sample_at(samples, level));
  return q;
}
/// The tail of `samples` (sorted in place) at `points` points (at least 2); empty for no samples.
inline std::vector<double> spread_tail(std::vector<double>& samples, std::size_t points = kTailPoints) {
  std::vector<double> t;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  points = std::max<std::size_t>(points, 2);
  for (std::size_t i = 0; i < points; ++i) t.push_back(detail::sample_at(samples, tail_level(i, points)));
  return t;
}

}  // namespace allocsim
