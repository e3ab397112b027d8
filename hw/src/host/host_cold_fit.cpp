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

std::vector<std::uint32_t> samples_after(const CostSamples& kind, TimeNs window_ns, bool inside) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < kind.ns.size(); ++i)
    if ((TimeNs(kind.since_sleep[i]) < window_ns) == inside) out.push_back(kind.ns[i]);
  return out;
}

namespace {

/// Σ over kinds of (samples in `part`) x (the estimate of `part`) and x (`reference` of the kind).
struct Weighted {
  double cost = 0, reference = 0;
  std::uint64_t samples = 0;
  double ratio() const { return reference > 0 ? cost / reference : 0; }
};

}  // namespace

HostColdFit fit_host_cold(const std::vector<CostSamples>& warm, const std::vector<CostSamples>& cold) {
  constexpr std::array<std::uint32_t, 7> kBinEnds = {10'000, 20'000, 40'000, 80'000, 160'000, 320'000, 640'000};
  constexpr double kSlower = 1.1;
  constexpr std::size_t kMinBinSamples = 20;
  std::array<std::vector<double>, kBinEnds.size()> ratios;
  std::vector<double> warm_median(warm.size(), 0);
  for (std::size_t k = 0; k < warm.size() && k < cold.size(); ++k) {
    std::vector<std::uint32_t> w = warm[k].ns;
    warm_median[k] = cost_estimate(w, true);
    if (!(warm_median[k] > 0)) continue;
    for (std::size_t i = 0; i < cold[k].ns.size(); ++i) {
      const auto bin = std::upper_bound(kBinEnds.begin(), kBinEnds.end(), cold[k].since_sleep[i]) - kBinEnds.begin();
      if (std::size_t(bin) < kBinEnds.size()) ratios[std::size_t(bin)].push_back(double(cold[k].ns[i]) / warm_median[k]);
    }
  }
  HostColdFit fit;
  bool leading = true;
  std::uint32_t from = 0;
  for (std::size_t b = 0; b < kBinEnds.size(); ++b) {
    std::vector<double>& r = ratios[b];
    double median = 0;
    if (!r.empty()) {
      std::nth_element(r.begin(), r.begin() + std::ptrdiff_t(r.size() / 2), r.end());
      median = r[r.size() / 2];
    }
    leading = leading && r.size() >= kMinBinSamples && median >= kSlower;
    if (leading) fit.window_ns = kBinEnds[b];
    char line[160];
    std::snprintf(line, sizeof line, "%u-%u us after a wake-up: %zu samples, median %.2f x warm%s", from / 1000,
                  kBinEnds[b] / 1000, r.size(), median, leading ? " (inside the window)" : "");
    fit.lines.emplace_back(line);
    from = kBinEnds[b];
  }
  if (fit.window_ns == 0) return fit;
  Weighted w;
  for (std::size_t k = 0; k < warm.size() && k < cold.size(); ++k) {
    std::vector<std::uint32_t> inside = samples_after(cold[k], fit.window_ns, true),
                               reference = samples_after(warm[k], fit.window_ns);
    if (inside.empty() || reference.empty()) continue;
    w.samples += inside.size();
    w.cost += double(inside.size()) * cost_estimate(inside, cold[k].by_median);
    w.reference += double(inside.size()) * cost_estimate(reference, warm[k].by_median);
  }
  fit.cold_samples = w.samples;
  fit.factor = w.ratio();
  if (!(fit.factor > 1)) {  // slower by the median, not by the estimates the profile charges
    fit.window_ns = 0;
    fit.factor = 1;
  }
  return fit;
}

HostColdCheck check_host_cold(const std::vector<CostSamples>& kinds, const PlatformProfile& profile) {
  Weighted in, out;
  for (const CostSamples& k : kinds) {
    const PlatformField* f = find_platform_field(k.name);
    if (!f || !f->ns) continue;
    const double charged = double(profile.*f->ns);
    for (bool inside : {true, false}) {
      std::vector<std::uint32_t> v = samples_after(k, profile.host_cold_window_ns, inside);
      if (v.empty()) continue;
      Weighted& part = inside ? in : out;
      part.samples += v.size();
      part.cost += double(v.size()) * cost_estimate(v, k.by_median);
      part.reference += double(v.size()) * charged;
    }
  }
  return HostColdCheck{in.ratio(), out.ratio(), in.samples, out.samples};
}

}  // namespace allocsim::hw
