// `allocsim run --samples` (results/samples.h): the same bytes for any thread count, a spread that
// makes an execution's corruption a probability rather than 0 or 1, and the summary every output
// of the samples shares (sample_summary.h).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <sstream>

#include "allocsim/core/policy.h"
#include "allocsim/engine/simulate.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/result_json.h"
#include "allocsim/results/samples.h"
#include "allocsim/scenarios/loader.h"

using namespace allocsim;

namespace {

/// One run of `s` under immediate + none at semaphore 32, seed 1, its costs drawn from `spread`
/// (none when it is empty).
RunResult immediate_at_32(const Scenario& s, const PlatformSpread& spread) {
  auto policy = make_policy("immediate", s.params);
  auto guard = make_guard("none", s.params);
  SimOptions o;
  o.semaphore = 32;
  o.seed = 1;
  o.params = s.params;
  o.spread = spread.empty() ? nullptr : &spread;
  return simulate(s, *policy, *guard, o);
}

const std::string kCalibration = std::string(ALLOCSIM_SOURCE_DIR) + "/results/hw/h200-samples/calibration.json";

RunConfig config(const char* scenario, const char* policy, const char* guard) {
  RunConfig c;
  c.scenario = scenario;
  c.policy = policy;
  c.guard = guard;
  c.semaphore = 32;
  c.platform_file = kCalibration;
  return c;
}

RunConfig seed_repro_immediate() { return config("seed-repro", "immediate", "none"); }

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

TEST_CASE("samples: a host pace scales every host cost of a run, and only the host's", "[samples][spread]") {
  const Scenario s = load_scenario("seed-repro");
  auto run_with = [&](const PlatformSpread& spread) { return immediate_at_32(s, spread); };
  const RunResult plain = run_with(PlatformSpread{});
  PlatformSpread doubled;
  doubled.host_pace.assign(kSpreadLevels.size(), 2.0);  // every run draws a pace of exactly 2
  const RunResult slow = run_with(doubled);
  REQUIRE(plain.host_busy_ns > 0);
  CHECK(slow.host_busy_ns == 2 * plain.host_busy_ns);
  // Device ops keep their durations: the 1 ms spin still dominates each execution's device time.
  CHECK(slow.makespan_ns < 2 * plain.makespan_ns);
  // With a pace of 1 the costs are the profile's, as without one (only the draw order moves on).
  PlatformSpread unit;
  unit.host_pace.assign(kSpreadLevels.size(), 1.0);
  CHECK(run_with(unit).host_busy_ns == plain.host_busy_ns);
}

TEST_CASE("samples: the host-pace level multiplies the pace each run draws, with or without a pace spread",
          "[samples][spread]") {
  const Scenario s = load_scenario("seed-repro");
  auto run_with = [&](const PlatformSpread& spread) { return immediate_at_32(s, spread); };
  PlatformSpread doubled;
  doubled.host_pace.assign(kSpreadLevels.size(), 2.0);
  PlatformSpread unit_at_level_2;  // a pace of 1 drawn, times the level
  unit_at_level_2.host_pace.assign(kSpreadLevels.size(), 1.0);
  unit_at_level_2.host_pace_level = 2;
  PlatformSpread level_only;  // no pace to draw: the level alone
  level_only.host_pace_level = 2;
  PlatformSpread none;
  const RunResult plain = run_with(none), slow = run_with(doubled);
  REQUIRE(plain.host_busy_ns > 0);
  REQUIRE(slow.host_busy_ns == 2 * plain.host_busy_ns);
  CHECK(run_with(unit_at_level_2).host_busy_ns == slow.host_busy_ns);
  CHECK(run_with(level_only).host_busy_ns == slow.host_busy_ns);
  CHECK(run_with(level_only).makespan_ns == run_with(doubled).makespan_ns);
  CHECK(levelled_pace({0.9, 1.0, 1.2}, 0.5) == std::vector<double>{0.45, 0.5, 0.6});
}

TEST_CASE("samples: a wide host pace turns seed-repro's execution 1 at semaphore 32 into a probability",
          "[samples][spread]") {
  // Execution 1 corrupts only when the host is still enqueueing memsets when the GPU fills X#1,
  // about 1 ms in: a trial whose whole host runs slow (results/hw/h200-edge).
  const RunConfig c = seed_repro_immediate();
  const Scenario s = load_scenario("seed-repro");
  PlatformSpread spread = load_platform_spread(kCalibration);
  const SampleSet without = run_samples(s, c, spread, 200, 2);
  spread.host_pace = {0.85, 0.9, 0.95, 1.0, 1.1, 1.3, 2.0};
  const SampleSet with = run_samples(s, c, spread, 200, 2);
  REQUIRE(with.manifest_by_execution.size() > 1);
  CHECK(with.manifest_by_execution[1] > without.manifest_by_execution[1]);
  CHECK(with.manifest_by_execution[1] < with.samples);
}

TEST_CASE("samples: a callback wake-up's tail holds deferred frees back and raises the highest peak",
          "[samples][spread]") {
  // conv-autotune at semaphore 32 with deferred-callback + wait-compute: one wake-up of the
  // callback thread near a millisecond keeps a trial's frees from the pool (results/hw/h200-callbacks).
  const RunConfig c = config("conv-autotune", "deferred-callback", "wait-compute");
  const Scenario s = load_scenario("conv-autotune");
  PlatformSpread spread = load_platform_spread(kCalibration);
  const std::size_t latency = platform_field_index(*find_platform_field("callback_latency_ns"));
  REQUIRE(!spread.quantiles[latency].empty());
  const SampleSummary capped = summarize(run_samples(s, c, spread, 300, 2));
  spread.tails[latency] = {spread.quantiles[latency].back(), 2'000'000};  // p99.9 = p99, the largest 2 ms
  const SampleSummary tailed = summarize(run_samples(s, c, spread, 300, 2));
  CHECK(tailed.peak_bytes_in_use.max > capped.peak_bytes_in_use.max);
}

TEST_CASE("samples: fewer than one is refused", "[samples]") {
  CHECK_THROWS_AS(run_samples(load_scenario("seed-repro"), seed_repro_immediate(), PlatformSpread{}, 0, 1), RunInputError);
}

TEST_CASE("samples: the summary reads back from its JSON, and samples.csv carries each rate's interval", "[samples]") {
  const SampleSet set = run_samples(load_scenario("seed-repro"), seed_repro_immediate(), load_platform_spread(kCalibration), 30, 2);
  const SampleSummary s = summarize(set);
  REQUIRE(s.samples_with_manifest > 0);
  // Every interval in the files comes from the counts: the object read back writes the same bytes.
  const auto back = summary_from_json(summary_to_json(s));
  REQUIRE(back);
  CHECK(pretty_json(summary_to_json(*back)) == pretty_json(summary_to_json(s)));
  CHECK(pretty_json(samples_to_json(set)) == pretty_json(summary_to_json(s)));
  const boost::json::object written = summary_to_json(s);
  const auto& any = written.at("manifest_any").as_object();
  const auto [lo, hi] = binomial_interval(s.samples_with_manifest, s.samples);
  CHECK(any.at("low").as_double() == lo);
  CHECK(any.at("high").as_double() == hi);

  const std::string csv = samples_csv_text({s, s});
  std::istringstream lines(csv);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  CHECK(header.rfind("scenario,policy,guard,semaphore,first_seed,samples,executions,incomplete,manifest_any.samples_with_manifest,"
                     "manifest_any.probability,manifest_any.low,manifest_any.high,manifest_execution_0.samples_with_manifest",
                     0) == 0);
  CHECK(std::count(header.begin(), header.end(), ',') == std::count(row.begin(), row.end(), ','));
  char rate[128];
  std::snprintf(rate, sizeof rate, ",%d,%.6f,%.6f,%.6f,", s.samples_with_manifest, double(s.samples_with_manifest) / s.samples,
                lo, hi);
  CHECK(row.find(rate) != std::string::npos);

  boost::json::object broken = summary_to_json(s);
  broken.erase("manifest_by_execution");
  std::string why;
  CHECK_FALSE(summary_from_json(broken, &why));
  CHECK(why.find("manifest_by_execution") != std::string::npos);
}

TEST_CASE("samples: --samples needs a platform file with a spread", "[samples]") {
  CHECK_THROWS_WITH(spread_for_samples(""), Catch::Contains("--samples needs --platform FILE"));
  const std::string no_spread = std::string(ALLOCSIM_SOURCE_DIR) + "/results/hw/h200/calibration.json";
  CHECK_THROWS_WITH(spread_for_samples(no_spread), Catch::Contains("has no \"spread\""));
  CHECK_THROWS_AS(spread_for_samples("/nonexistent/platform.json"), RunInputError);
  CHECK_FALSE(spread_for_samples(kCalibration).empty());
}
