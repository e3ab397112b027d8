// See host_cold_fit.h.
#include "allocsim/hw/host_cold_fit.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace allocsim::hw {

double cost_estimate(std::vector<std::uint32_t>& v, bool by_median) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  if (by_median) return double(v[v.size() / 2]);
  const std::size_t keep = std::max<std::size_t>(1, v.size() * 99 / 100);
  double sum = 0;
  for (std::size_t i = 0; i < keep; ++i) sum += v[i];
  return sum / double(keep);
}

std::vector<std::uint32_t> warm_part(const CostSamples& kind, TimeNs window_ns) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < kind.ns.size(); ++i)
    if (TimeNs(kind.since_sleep[i]) >= window_ns) out.push_back(kind.ns[i]);
  return out;
}

HostColdFit fit_host_cold(const std::vector<CostSamples>& kinds) {
  constexpr std::array<std::uint32_t, 7> kBinEnds = {10'000, 20'000, 40'000, 80'000, 160'000, 320'000, 640'000};
  constexpr double kSlower = 1.1;
  constexpr std::size_t kMinBinSamples = 20;
  std::array<std::vector<double>, kBinEnds.size()> ratios;
  HostColdFit fit;
  for (const CostSamples& k : kinds) {
    std::vector<std::uint32_t> warm;
    for (std::size_t i = 0; i < k.ns.size(); ++i)
      if (k.since_sleep[i] >= kColdHorizonNs) warm.push_back(k.ns[i]);
    if (warm.empty()) continue;
    std::nth_element(warm.begin(), warm.begin() + std::ptrdiff_t(warm.size() / 2), warm.end());
    const double reference = std::max(1.0, double(warm[warm.size() / 2]));
    for (std::size_t i = 0; i < k.ns.size(); ++i) {
      const auto bin = std::upper_bound(kBinEnds.begin(), kBinEnds.end(), k.since_sleep[i]) - kBinEnds.begin();
      if (std::size_t(bin) < kBinEnds.size()) ratios[std::size_t(bin)].push_back(double(k.ns[i]) / reference);
    }
  }
  bool leading = true;
  std::uint32_t from = 0;
  for (std::size_t b = 0; b < kBinEnds.size(); ++b) {
    std::vector<double>& r = ratios[b];
    double median = 0;
    if (!r.empty()) {
      std::nth_element(r.begin(), r.begin() + std::ptrdiff_t(r.size() / 2), r.end());
      median = r[r.size() / 2];
    }
    const bool slower = r.size() >= kMinBinSamples && median >= kSlower;
    if (leading && slower) fit.window_ns = kBinEnds[b];
    else leading = false;
    char line[160];
    std::snprintf(line, sizeof line, "%u-%u us after a wake-up: %zu samples, median %.2f x warm%s", from / 1000,
                  kBinEnds[b] / 1000, r.size(), median, leading ? " (inside the window)" : "");
    fit.lines.emplace_back(line);
    from = kBinEnds[b];
  }
  if (fit.window_ns == 0) return fit;
  double cold_cost = 0, warm_cost = 0;
  for (const CostSamples& k : kinds) {
    std::vector<std::uint32_t> cold, warm = warm_part(k, fit.window_ns);
    for (std::size_t i = 0; i < k.ns.size(); ++i)
      if (TimeNs(k.since_sleep[i]) < fit.window_ns) cold.push_back(k.ns[i]);
    if (cold.empty() || warm.empty()) continue;
    fit.cold_samples += cold.size();
    fit.warm_samples += warm.size();
    cold_cost += double(cold.size()) * cost_estimate(cold, k.by_median);
    warm_cost += double(cold.size()) * cost_estimate(warm, k.by_median);
  }
  if (warm_cost > 0) fit.factor = cold_cost / warm_cost;
  if (!(fit.factor > 1)) fit = HostColdFit{0, 1, fit.cold_samples, fit.warm_samples, fit.lines};
  return fit;
}

}  // namespace allocsim::hw
