// predict_by_blocks (sim_prediction.h): run t plays under blocks[t * blocks / runs], with the seed
// it has in predict(), so a blocked prediction is the sum of its blocks' runs predicted apart.
#include <catch2/catch.hpp>

#include "allocsim/engine/execution_units.h"
#include "allocsim/hw/sim_prediction.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/resolve.h"

using namespace allocsim;

namespace {

std::vector<int> minus(std::vector<int> a, const std::vector<int>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] -= b[i];
  return a;
}
std::vector<int> plus(std::vector<int> a, const std::vector<int>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

/// seed-repro at semaphore 32 under h200-trial-release's calibration, immediate + none: its
/// execution 1 goes with the host's pace, so a prediction at another pace shows.
struct PaceEdge {
  RunConfig run = [] {
    RunConfig r;
    r.scenario = "seed-repro";
    r.semaphore = 32;
    r.platform_file = "results/hw/h200-trial-release/calibration.json";
    return r;
  }();
  Scenario scenario = load_for_run(run);
  SimOptions resolved = resolve_sim_options(scenario, run);
  ExecutionUnits units = execution_units(scenario.program);
  hw::PredictionSetup setup = [this] {
    hw::PredictionSetup s;
    s.policy = "immediate";
    s.guard = "none";
    s.semaphore = 32;
    s.params = resolved.params;
    return s;
  }();
};

}  // namespace

TEST_CASE("predict_by_blocks: each block's runs as predicted under that block alone", "[hw][predict]") {
  // At pace 1 and pace 2 the two blocks' predictions differ, so a wrong run-to-block mapping shows.
  PaceEdge edge;
  const Scenario& scenario = edge.scenario;
  const SimOptions& resolved = edge.resolved;
  const ExecutionUnits& units = edge.units;
  hw::PredictionSetup& setup = edge.setup;
  hw::RunConditions steady{resolved.platform, load_platform_spread(*edge.run.platform_file)};
  hw::RunConditions slow = steady;
  steady.spread.host_pace.assign(kSpreadLevels.size(), 1.0);
  slow.spread.host_pace.assign(kSpreadLevels.size(), 2.0);
  const int n = 20;
  auto alone = [&](const hw::RunConditions& c, int runs) {
    setup.runs = runs;
    return hw::predict(scenario, setup, c.platform, c.spread, units).manifest_by_execution;
  };
  const std::vector<int> steady_n = alone(steady, n), steady_2n = alone(steady, 2 * n), slow_n = alone(slow, n),
                         slow_2n = alone(slow, 2 * n);
  REQUIRE(steady_2n != slow_2n);
  setup.runs = 2 * n;
  const hw::SimPrediction blocked = hw::predict_by_blocks(scenario, setup, {steady, slow}, units);
  // Runs 0..n-1 steady, n..2n-1 slow: the slow block's runs are slow_2n's less slow_n's.
  CHECK(blocked.manifest_by_execution == plus(steady_n, minus(slow_2n, slow_n)));
  CHECK(blocked.runs == 2 * n);
  CHECK(blocked.host_pace == steady.spread.host_pace);
  // One block is predict() itself.
  CHECK(hw::predict_by_blocks(scenario, setup, {steady}, units).manifest_by_execution == steady_2n);
  CHECK_THROWS(hw::predict_by_blocks(scenario, setup, {}, units));
}

TEST_CASE("pace_band_factors: the host pace's p0 and p99 over its median, none without a pace", "[hw][predict]") {
  const std::optional<hw::PaceBandFactors> f = hw::pace_band_factors({0.5, 0.8, 0.9, 1.25, 1.3, 1.5, 2.5});
  REQUIRE(f);
  CHECK(f->low == 0.5 / 1.25);
  CHECK(f->high == 2.5 / 1.25);
  CHECK(!hw::pace_band_factors({}));
  CHECK(!hw::pace_band_factors({1.0, 2.0}));                      // not at kSpreadLevels
  CHECK(!hw::pace_band_factors({0, 0, 0, 0, 1.0, 1.0, 1.0}));     // no median to divide by
}

TEST_CASE("predict_pace_band: predict() with every host-pace quantile times each factor", "[hw][predict]") {
  PaceEdge edge;
  const Scenario& scenario = edge.scenario;
  const SimOptions& resolved = edge.resolved;
  const ExecutionUnits& units = edge.units;
  hw::PredictionSetup& setup = edge.setup;
  const PlatformSpread spread = load_platform_spread(*edge.run.platform_file);
  setup.runs = 40;
  const hw::PaceBand band = hw::predict_pace_band(scenario, setup, resolved.platform, spread, units, {0.7, 1.6});
  CHECK(band.low_factor == 0.7);
  CHECK(band.high_factor == 1.6);
  // Scaled by hand here, so the band is checked against a scaling it does not share code with.
  auto at = [&](double factor) {
    PlatformSpread scaled = spread;
    for (double& q : scaled.host_pace) q *= factor;
    return hw::predict(scenario, setup, resolved.platform, scaled, units).manifest_by_execution;
  };
  CHECK(band.low.manifest_by_execution == at(0.7));
  CHECK(band.high.manifest_by_execution == at(1.6));
  CHECK(band.low.manifest_by_execution != band.high.manifest_by_execution);
}
