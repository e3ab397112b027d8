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

}  // namespace

TEST_CASE("predict_by_blocks: each block's runs as predicted under that block alone", "[hw][predict]") {
  // seed-repro at semaphore 32, whose execution 1 goes with the host's pace: at pace 1 and pace 2
  // the two blocks' predictions differ, so a wrong run-to-block mapping shows.
  RunConfig run;
  run.scenario = "seed-repro";
  run.semaphore = 32;
  run.platform_file = "results/hw/h200-trial-release/calibration.json";
  const Scenario scenario = load_for_run(run);
  const SimOptions resolved = resolve_sim_options(scenario, run);
  const ExecutionUnits units = execution_units(scenario.program);
  hw::RunConditions steady{resolved.platform, load_platform_spread(*run.platform_file)};
  hw::RunConditions slow = steady;
  steady.spread.host_pace.assign(kSpreadLevels.size(), 1.0);
  slow.spread.host_pace.assign(kSpreadLevels.size(), 2.0);
  hw::PredictionSetup setup;
  setup.policy = "immediate";
  setup.guard = "none";
  setup.semaphore = 32;
  setup.params = resolved.params;
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
