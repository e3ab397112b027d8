// See pace_scan.h.
#include "allocsim/results/pace_scan.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <iterator>
#include <set>

#include "allocsim/results/runner.h"
#include "allocsim/results/sample_summary.h"
#include "report_format.h"

namespace allocsim {
namespace {

using results::detail::fixed;

std::string pct(double v) { return fixed(100 * v, 1) + "%"; }
std::string times(double factor) { return "x" + fixed(factor, 2); }
std::string mib(std::uint64_t bytes) { return fixed(double(bytes) / (1 << 20), 1) + " MiB"; }
std::string pad_left(const std::string& s, std::size_t width) {
  return std::string(s.size() < width ? width - s.size() : 0, ' ') + s;
}
double rate_of(const PacePoint& p, int execution) {
  return p.samples ? double(p.manifest_by_execution[std::size_t(execution)]) / p.samples : 0;
}

/// Every column's width: a factor, a rate or a peak ("246.0 MiB").
constexpr std::size_t kColumn = 10;
/// An execution's rate moves with the pace when it differs by this much between two factors.
constexpr double kMoved = 0.05;
/// An edge is crossed between a factor where the rate is at most kLow and one where it is at least kHigh.
constexpr double kLow = 0.10, kHigh = 0.90;

}  // namespace

PlatformSpread scale_host_pace(const PlatformSpread& spread, double factor) {
  PlatformSpread scaled = spread;
  if (scaled.host_pace.empty()) {
    if (factor != 1) scaled.host_pace.assign(kSpreadLevels.size(), factor);
    return scaled;
  }
  for (double& q : scaled.host_pace) q *= factor;
  return scaled;
}

void check_pace_factors(const std::vector<double>& factors) {
  std::set<double> seen;
  for (double f : factors) {
    if (!std::isfinite(f) || f <= 0)
      throw RunInputError("--host-pace: " + fixed(f, 3) + " is not a positive factor (e.g. 0.8,1,1.25)");
    if (!seen.insert(f).second) throw RunInputError("--host-pace: " + fixed(f, 3) + " is given twice");
  }
}

std::optional<PacedSamples> run_paced_samples(const Scenario& scenario, const RunConfig& config,
                                              const PlatformSpread& spread, int samples,
                                              const std::vector<double>& factors, results::JobFarm& farm,
                                              results::ProgressMeter* progress) {
  check_pace_factors(factors);
  std::vector<double> order = factors;
  std::sort(order.begin(), order.end());
  // Set 0 is the spread as it is; set k + 1 has its host pace times order[k].
  std::vector<PlatformSpread> spreads = {spread};
  for (double f : order) spreads.push_back(scale_host_pace(spread, f));
  std::optional<std::vector<SampleRun>> all = run_sample_jobs(scenario, config, spreads, samples, farm, progress);
  if (!all) return std::nullopt;
  std::vector<SampleRun>& runs = *all;
  const std::size_t n = std::size_t(samples);
  auto set_of = [&](std::size_t k) {
    std::vector<SampleRun> part(std::make_move_iterator(runs.begin() + std::ptrdiff_t(k * n)),
                                std::make_move_iterator(runs.begin() + std::ptrdiff_t((k + 1) * n)));
    return assemble_samples(std::move(part));
  };
  PacedSamples out{set_of(0), {}};
  for (std::size_t k = 0; k < order.size(); ++k) {
    const SampleSet set = set_of(k + 1);
    out.points.push_back({order[k], set.samples, set.manifest_by_execution, set.samples_with_manifest,
                          summarize(set).peak_bytes_in_use});
  }
  return out;
}

std::string format_pace_scan(const std::vector<PacePoint>& points) {
  if (points.empty()) return "";
  const int executions = int(points.front().manifest_by_execution.size());
  std::string o = "host pace every host cost times each factor, on top of each sample's own draw:\n";
  o += "               ";
  for (const PacePoint& p : points) o += "  " + pad_left(times(p.factor), kColumn);
  o += "\n";
  // One row: its name, then one cell per factor.
  auto cells = [&](const std::string& name, auto cell) {
    std::string line = "  " + name + std::string(name.size() < 13 ? 13 - name.size() : 0, ' ');
    for (const PacePoint& p : points) line += "  " + pad_left(cell(p), kColumn);
    return line + "\n";
  };
  auto row = [&](const std::string& name, auto rate) { return cells(name, [&](const PacePoint& p) { return pct(rate(p)); }); };
  // The edge: the narrowest pair of factors between which one execution crosses from kLow to kHigh.
  int edge_execution = -1, widest_execution = -1;
  std::size_t edge_lo = 0, edge_hi = 0;
  double widest_move = 0;
  int moving = 0;
  for (int e = 0; e < executions; ++e) {
    double lo = 1, hi = 0;
    for (const PacePoint& p : points) lo = std::min(lo, rate_of(p, e)), hi = std::max(hi, rate_of(p, e));
    if (hi - lo < kMoved) continue;
    ++moving;
    o += row("execution " + std::to_string(e), [e](const PacePoint& p) { return rate_of(p, e); });
    if (hi - lo > widest_move) widest_move = hi - lo, widest_execution = e;
    for (std::size_t i = 0; i < points.size(); ++i)
      for (std::size_t j = i + 1; j < points.size(); ++j) {
        const double a = rate_of(points[i], e), b = rate_of(points[j], e);
        const bool crosses = (a <= kLow && b >= kHigh) || (a >= kHigh && b <= kLow);
        if (!crosses) continue;
        const bool narrower =
            edge_execution < 0 || points[j].factor - points[i].factor < points[edge_hi].factor - points[edge_lo].factor;
        if (narrower) edge_execution = e, edge_lo = i, edge_hi = j;
      }
  }
  o += row("any execution", [](const PacePoint& p) { return p.samples ? double(p.samples_with_manifest) / p.samples : 0; });
  const std::string range = times(points.front().factor) + " and " + times(points.back().factor);
  if (moving == 0) {
    o += "edge      no execution's rate moves by " + pct(kMoved) + " or more between " + range +
         " of the platform's host pace: away from an edge\n";
  } else if (edge_execution >= 0) {
    const PacePoint &a = points[edge_lo], &b = points[edge_hi];
    o += "edge      execution " + std::to_string(edge_execution) + " goes from " + pct(rate_of(a, edge_execution)) +
         " at " + times(a.factor) + " to " + pct(rate_of(b, edge_execution)) + " at " + times(b.factor) +
         " of the platform's host pace: a host that much slower or faster than the calibrating one decides it\n";
  } else {
    o += "edge      " + std::to_string(moving) + (moving == 1 ? " execution moves" : " executions move") + ", none from " + pct(kLow) + " to " + pct(kHigh) +
         " between " + range + "; the most, execution " + std::to_string(widest_execution) + ", by " +
         fixed(100 * widest_move, 1) + " points\n";
  }
  // The peak: what a policy that withholds memory while the host runs ahead costs at each pace.
  o += cells("peak median", [](const PacePoint& p) { return mib(p.peak_bytes_in_use.median); });
  o += cells("peak max", [](const PacePoint& p) { return mib(p.peak_bytes_in_use.max); });
  auto by_median = [](const PacePoint& a, const PacePoint& b) { return a.peak_bytes_in_use.median < b.peak_bytes_in_use.median; };
  const PacePoint& low = *std::min_element(points.begin(), points.end(), by_median);
  const PacePoint& high = *std::max_element(points.begin(), points.end(), by_median);
  if (low.peak_bytes_in_use.median == high.peak_bytes_in_use.median)
    o += "peak      the median peak in-use is " + mib(low.peak_bytes_in_use.median) + " at every factor between " + range + "\n";
  else
    o += "peak      the median peak in-use goes from " + mib(low.peak_bytes_in_use.median) + " at " + times(low.factor) +
         " to " + mib(high.peak_bytes_in_use.median) + " at " + times(high.factor) + "\n";
  return o;
}

boost::json::array pace_scan_to_json(const std::vector<PacePoint>& points) {
  boost::json::array out;
  for (const PacePoint& p : points) {
    boost::json::array per;
    for (int k : p.manifest_by_execution) per.push_back(rate_to_json(k, p.samples));
    out.push_back(boost::json::object{{"factor", p.factor},
                                      {"samples", p.samples},
                                      {"manifest_any", rate_to_json(p.samples_with_manifest, p.samples)},
                                      {"manifest_by_execution", std::move(per)},
                                      {"peak_bytes_in_use", quantiles_to_json(p.peak_bytes_in_use)}});
  }
  return out;
}

}  // namespace allocsim
