// See sim_prediction.h.
#include "allocsim/hw/sim_prediction.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "allocsim/core/policy.h"
#include "allocsim/core/seeds.h"
#include "allocsim/engine/simulate.h"
#include "allocsim/hw/launch_cadence.h"
#include "allocsim/results/pace_scan.h"

namespace allocsim::hw {

double upper_median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

namespace {

/// What predict() keeps of one simulated run, in its index's slot.
struct SimRunOutcome {
  RunResult result;  // findings dropped unless the corruption pairs need them
  std::set<int> manifest_units;
  double cadence_ns = 0;
  std::vector<TimelineOp> timeline_ops;  // the timeline trial's only
};

}  // namespace

// The device machine's cores make the thousands of runs that a peak range needs (validate
// --sim-samples) cost seconds.
SimPrediction predict(const Scenario& scenario, const PredictionSetup& setup, const PlatformProfile& platform,
                      const PlatformSpread& spread, const ExecutionUnits& units, CorruptionPairTally* pairs,
                      TimelineCombination* timeline) {
  return predict_by_blocks(scenario, setup, {RunConditions{platform, spread}}, units, pairs, timeline);
}

SimPrediction predict_by_blocks(const Scenario& scenario, const PredictionSetup& setup,
                                const std::vector<RunConditions>& blocks, const ExecutionUnits& units,
                                CorruptionPairTally* pairs, TimelineCombination* timeline) {
  if (blocks.empty()) throw std::invalid_argument("predict_by_blocks: no blocks");
  const int sim_runs = setup.runs;
  std::vector<SimRunOutcome> outcomes(std::size_t(std::max(sim_runs, 0)));
  auto simulate_one = [&](int t) {
    auto p = make_policy(setup.policy, setup.params);
    auto g = make_guard(setup.guard, setup.params);
    SimOptions so;
    so.semaphore = setup.semaphore;
    so.seed = seeds::nth(scenario.seed, std::uint64_t(t));
    so.params = setup.params;
    const RunConditions& block = blocks[std::size_t(t) * blocks.size() / std::size_t(std::max(sim_runs, 1))];
    so.platform = block.platform;
    so.spread = block.spread.empty() ? nullptr : &block.spread;
    so.max_events = 200'000'000;
    so.max_findings = std::size_t(1) << 30;
    so.holds = setup.holds;
    SimTimelineObserver spans;
    const bool traced = timeline && t == setup.timeline_run;
    if (traced) so.observers.push_back(&spans);
    LaunchCadence launches;
    so.observers.push_back(&launches);
    SimRunOutcome& out = outcomes[std::size_t(t)];
    out.result = simulate(scenario, *p, *g, so);
    out.cadence_ns = launches.cadence_ns();
    out.manifest_units = manifest_units(units, out.result.findings);
    if (traced) out.timeline_ops = spans.ops();
    if (!pairs) out.result.findings.clear();
  };
  {
    boost::asio::thread_pool pool(std::max(1u, std::thread::hardware_concurrency()));
    std::exception_ptr failed;
    std::mutex failed_mu;
    for (int t = 0; t < sim_runs; ++t)
      boost::asio::post(pool, [&, t] {
        try {
          simulate_one(t);
        } catch (...) {
          std::lock_guard<std::mutex> lk(failed_mu);
          if (!failed) failed = std::current_exception();
        }
      });
    pool.join();
    if (failed) std::rethrow_exception(failed);
  }
  SimPrediction sim;
  sim.manifest_by_execution.assign(std::size_t(units.units), 0);
  sim.host_pace = levelled_pace(blocks.front().spread.host_pace, blocks.front().spread.host_pace_level);
  int manifest_runs = 0;
  std::vector<double> ns_per_free, busy, cadence;
  for (int t = 0; t < sim_runs; ++t) {
    SimRunOutcome& o = outcomes[std::size_t(t)];
    const RunResult& r = o.result;
    cadence.push_back(o.cadence_ns);
    if (timeline && t == setup.timeline_run) timeline->sim_ops = std::move(o.timeline_ops);
    sim.peak_bytes_in_use_min = t == 0 ? r.peak_bytes_in_use : std::min(sim.peak_bytes_in_use_min, r.peak_bytes_in_use);
    sim.peak_bytes_in_use_max = std::max(sim.peak_bytes_in_use_max, r.peak_bytes_in_use);
    if (t == 0) {
      sim.latent = r.races_latent;
      sim.peak_bytes_in_use = r.peak_bytes_in_use;
      sim.completed = r.completed;
    }
    sim.manifest += r.races_manifest;
    for (int e : o.manifest_units) {
      ++sim.manifest_executions;
      ++sim.manifest_by_execution[std::size_t(e)];
    }
    if (pairs) pairs->add_sim_run(r.findings);
    manifest_runs += r.races_manifest > 0 ? 1 : 0;
    if (r.releases) ns_per_free.push_back(double(r.host_release_ns) / double(r.releases));
    busy.push_back(double(r.host_busy_ns));
  }
  sim.runs = sim_runs;
  sim.host_ns_per_free = upper_median(ns_per_free);
  sim.host_busy_ns = upper_median(busy);
  sim.host_cadence_ns = upper_median(cadence);
  sim.trial_manifest_rate = double(manifest_runs) / sim_runs;
  sim.manifest_rate = double(sim.manifest_executions) / (double(sim_runs) * double(units.units));
  return sim;
}

std::optional<PaceBandFactors> pace_band_factors(const std::vector<double>& host_pace) {
  if (host_pace.size() != kSpreadLevels.size()) return std::nullopt;
  auto at = [&](double level) {
    return host_pace[std::size_t(std::find(kSpreadLevels.begin(), kSpreadLevels.end(), level) - kSpreadLevels.begin())];
  };
  const double median = at(0.50);
  if (!(median > 0)) return std::nullopt;
  return PaceBandFactors{at(0.0) / median, at(0.99) / median};
}

PaceBandFactors require_pace_band_factors(const std::vector<double>& host_pace, const std::string& calibration) {
  if (const std::optional<PaceBandFactors> factors = pace_band_factors(host_pace)) return *factors;
  throw std::runtime_error("--pace-band: " + calibration +
                           " records no host pace (spread.host_pace) to take the band's ends from");
}

PaceBand predict_pace_band(const Scenario& scenario, const PredictionSetup& setup, const PlatformProfile& platform,
                           const PlatformSpread& spread, const ExecutionUnits& units, const PaceBandFactors& factors) {
  PaceBand band;
  band.low_factor = factors.low;
  band.high_factor = factors.high;
  band.low = predict(scenario, setup, platform, scale_host_pace(spread, factors.low), units);
  band.high = predict(scenario, setup, platform, scale_host_pace(spread, factors.high), units);
  return band;
}

std::vector<double> host_pace_of(const std::vector<double>& cadences_ns, double sim_cadence_ns) {
  std::vector<double> pace;
  if (sim_cadence_ns <= 0) return pace;
  for (double c : cadences_ns)
    if (c > 0) pace.push_back(c / sim_cadence_ns);
  return spread_quantiles(pace);
}

}  // namespace allocsim::hw
