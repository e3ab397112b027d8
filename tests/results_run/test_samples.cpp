// `allocsim run --samples` (results/samples.h): the same bytes for any thread count, and a spread
// that makes an execution's corruption a probability rather than 0 or 1.
#include <catch2/catch.hpp>

#include "allocsim/results/platform_io.h"
#include "allocsim/results/result_json.h"
#include "allocsim/results/samples.h"
#include "allocsim/scenarios/loader.h"

using namespace allocsim;

namespace {

const std::string kCalibration = std::string(ALLOCSIM_SOURCE_DIR) + "/results/hw/h200-samples/calibration.json";

RunConfig seed_repro_immediate() {
  RunConfig c;
  c.scenario = "seed-repro";
  c.policy = "immediate";
  c.guard = "none";
  c.semaphore = 32;
  c.platform_file = kCalibration;
  return c;
}

}  // namespace

TEST_CASE("samples: the same output on one thread and on several", "[samples]") {
  const RunConfig c = seed_repro_immediate();
  const Scenario s = load_scenario("seed-repro");
  const PlatformSpread spread = load_platform_spread(kCalibration);
  REQUIRE(!spread.empty());
  const SampleSet one = run_samples(s, c, spread, 40, 1), three = run_samples(s, c, spread, 40, 3);
  CHECK(format_samples(one) == format_samples(three));
  CHECK(pretty_json(samples_to_json(one)) == pretty_json(samples_to_json(three)));
}

TEST_CASE("samples: with the H200's spread an execution corrupts in some samples and not others", "[samples]") {
  const RunConfig c = seed_repro_immediate();
  const Scenario s = load_scenario("seed-repro");
  const SampleSet with = run_samples(s, c, load_platform_spread(kCalibration), 200, 2);
  const SampleSet without = run_samples(s, c, PlatformSpread{}, 20, 2);
  REQUIRE(with.executions == 20);
  bool partial = false;
  for (int k : with.manifest_by_execution) partial |= k > 0 && k < with.samples;
  CHECK(partial);
  // Without a spread every sample plays the same timing: each execution is 0 or all of them.
  for (int k : without.manifest_by_execution) CHECK((k == 0 || k == without.samples));
  const auto [lo, hi] = binomial_interval(10, 100);
  CHECK(lo < 0.1);
  CHECK(hi > 0.1);
  CHECK(lo == Approx(0.049).epsilon(0.02));
  CHECK(hi == Approx(0.176).epsilon(0.02));
}

TEST_CASE("samples: fewer than one is refused", "[samples]") {
  CHECK_THROWS_AS(run_samples(load_scenario("seed-repro"), seed_repro_immediate(), PlatformSpread{}, 0, 1), RunInputError);
}
