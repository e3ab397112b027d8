// `allocsim run --samples N --host-pace ...` (results/pace_scan.h): the samples played again with
// every host cost scaled, the same bytes on any thread count, and the edge sentence computed from
// the rates and peaks it prints.
#include <catch2/catch.hpp>
#include <cmath>

#include "allocsim/results/pace_scan.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/result_json.h"
#include "allocsim/results/runner.h"
#include "allocsim/scenarios/loader.h"

using namespace allocsim;

namespace {

// A calibration with a host pace (spread.host_pace): the H200 session whose seed-repro execution 1
// at semaphore 32 the calibrated prediction missed (results/hw/h200-wake-2).
const std::string kCalibration = std::string(ALLOCSIM_SOURCE_DIR) + "/results/hw/h200-wake-2/calibration.json";

RunConfig seed_repro(int semaphore) {
  RunConfig c;
  c.scenario = "seed-repro";
  c.policy = "immediate";
  c.guard = "none";
  c.semaphore = semaphore;
  c.platform_file = kCalibration;
  return c;
}

PacedSamples paced(int semaphore, const std::vector<double>& factors, int samples, int jobs) {
  const std::unique_ptr<results::JobFarm> farm = results::make_thread_farm(unsigned(jobs));
  return *run_paced_samples(load_scenario("seed-repro"), seed_repro(semaphore), load_platform_spread(kCalibration),
                            samples, factors, *farm);
}
std::vector<PacePoint> scan(int semaphore, const std::vector<double>& factors, int samples, int jobs) {
  return paced(semaphore, factors, samples, jobs).points;
}

PacePoint point(double factor, int samples, std::vector<int> by_execution) {
  PacePoint p{factor, samples, std::move(by_execution), 0, {}};
  for (int k : p.manifest_by_execution) p.samples_with_manifest = std::max(p.samples_with_manifest, k);
  return p;
}

}  // namespace

TEST_CASE("pace scan: a factor multiplies every quantile of the host pace", "[samples][pace]") {
  PlatformSpread s;
  s.host_pace = {0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.4};
  const PlatformSpread doubled = scale_host_pace(s, 2);
  REQUIRE(doubled.host_pace.size() == s.host_pace.size());
  for (std::size_t i = 0; i < s.host_pace.size(); ++i) CHECK(doubled.host_pace[i] == 2 * s.host_pace[i]);
  // Without a host pace a factor becomes a constant one; a factor of 1 leaves the spread as it is.
  CHECK(scale_host_pace(PlatformSpread{}, 1).host_pace.empty());
  CHECK(scale_host_pace(PlatformSpread{}, 1.5).host_pace == std::vector<double>(kSpreadLevels.size(), 1.5));
}

TEST_CASE("pace scan: factors must be positive, finite and distinct", "[samples][pace]") {
  CHECK_THROWS_AS(paced(32, {1.1, 1.1}, 5, 1), RunInputError);
  CHECK_THROWS_AS(check_pace_factors({1.0, 0.0}), RunInputError);
  CHECK_THROWS_AS(check_pace_factors({-1.0}), RunInputError);
  CHECK_THROWS_AS(check_pace_factors({std::nan("")}), RunInputError);
  CHECK_THROWS_WITH(check_pace_factors({0.9, 1.1, 0.9}), Catch::Contains("given twice"));
  CHECK_NOTHROW(check_pace_factors({0.5, 1.0, 2.0}));
}

TEST_CASE("pace scan: a slower host corrupts seed-repro's execution 1 at semaphore 32 more often", "[samples][pace]") {
  // Execution 1 corrupts when the host is still enqueueing the trial's memsets as the GPU fills
  // X#1, after the first 1 ms spin: the longer the host takes, the likelier (results/hw/h200-edge).
  const std::vector<PacePoint> points = scan(32, {1.3, 0.7, 1.0}, 200, 2);
  REQUIRE(points.size() == 3);
  CHECK(points[0].factor == 0.7);  // in ascending order
  CHECK(points[2].factor == 1.3);
  CHECK(points[0].manifest_by_execution.at(1) < points[1].manifest_by_execution.at(1));
  CHECK(points[1].manifest_by_execution.at(1) < points[2].manifest_by_execution.at(1));
  // At a factor of 1, and in the base set, the samples are run_samples' own.
  const SampleSet base = run_samples(load_scenario("seed-repro"), seed_repro(32), load_platform_spread(kCalibration), 200, 2);
  CHECK(points[1].manifest_by_execution == base.manifest_by_execution);
  CHECK(format_samples(paced(32, {1.3}, 200, 2).base) == format_samples(base));
  CHECK(format_pace_scan(points).find("execution 1 ") != std::string::npos);
}

TEST_CASE("pace scan: the same bytes on one thread and on several", "[samples][pace]") {
  const std::vector<PacePoint> one = scan(32, {0.9, 1.2}, 60, 1), three = scan(32, {0.9, 1.2}, 60, 3);
  CHECK(format_pace_scan(one) == format_pace_scan(three));
  CHECK(pretty_json(boost::json::object{{"scan", pace_scan_to_json(one)}}) ==
        pretty_json(boost::json::object{{"scan", pace_scan_to_json(three)}}));
}

TEST_CASE("pace scan: the edge line is computed from the rates the table shows", "[samples][pace]") {
  // Execution 1 crosses from 10% to 90% between x1.00 and x1.20 (and more widely from x0.80);
  // execution 2 moves but never crosses; execution 0 does not move and has no row.
  const std::vector<PacePoint> points = {point(0.8, 20, {20, 0, 1}), point(1.0, 20, {20, 1, 2}),
                                         point(1.2, 20, {20, 19, 5})};
  const std::string text = format_pace_scan(points);
  CHECK(text.find("execution 0 ") == std::string::npos);
  CHECK(text.find("execution 2 ") != std::string::npos);
  CHECK(text.find("edge      execution 1 goes from 5.0% at x1.00 to 95.0% at x1.20") != std::string::npos);

  const std::string none = format_pace_scan({point(0.8, 20, {20, 0}), point(1.2, 20, {20, 0})});
  CHECK(none.find("no execution's rate moves by 5.0% or more between x0.80 and x1.20") != std::string::npos);

  const std::string moving = format_pace_scan({point(0.8, 20, {2, 0}), point(1.2, 20, {10, 3})});
  CHECK(moving.find("2 executions move, none from 10.0% to 90.0%") != std::string::npos);
  CHECK(moving.find("the most, execution 0, by 40.0 points") != std::string::npos);
}

TEST_CASE("pace scan: at semaphore 1 no execution of seed-repro is near an edge", "[samples][pace]") {
  // Compute is idle at each trial's start: the zeroing lands before the copy whatever the host's pace.
  const std::string text = format_pace_scan(scan(1, {0.8, 1.25}, 40, 2));
  CHECK(text.find("away from an edge") != std::string::npos);
}

TEST_CASE("pace scan: the peak line is computed from the medians the table shows", "[samples][pace]") {
  auto with_peak = [](double factor, std::uint64_t median_mib, std::uint64_t max_mib) {
    PacePoint p = point(factor, 20, {0});
    p.peak_bytes_in_use = {median_mib << 20, median_mib << 20, max_mib << 20};
    return p;
  };
  const std::string text = format_pace_scan({with_peak(1.0, 246, 276), with_peak(1.5, 231, 258), with_peak(2.0, 218, 271)});
  CHECK(text.find("peak median     246.0 MiB   231.0 MiB   218.0 MiB") != std::string::npos);
  CHECK(text.find("peak max        276.0 MiB   258.0 MiB   271.0 MiB") != std::string::npos);
  CHECK(text.find("peak      the median peak in-use goes from 218.0 MiB at x2.00 to 246.0 MiB at x1.00") != std::string::npos);
  const std::string flat = format_pace_scan({with_peak(0.8, 12, 12), with_peak(1.2, 12, 16)});
  CHECK(flat.find("the median peak in-use is 12.0 MiB at every factor between x0.80 and x1.20") != std::string::npos);
  const std::string json = pretty_json(boost::json::object{{"scan", pace_scan_to_json({with_peak(2.0, 218, 271)})}});
  CHECK(json.find("\"peak_bytes_in_use\"") != std::string::npos);
  CHECK(json.find(std::to_string(std::uint64_t(271) << 20)) != std::string::npos);
}

TEST_CASE("pace scan: a slower host withholds less under batched-callback at conv-autotune 32", "[samples][pace]") {
  // The host runs less far ahead of compute, so fewer deferred frees are pending at the peak; on the
  // H200 the trials at pace 1.59 and 1.80 peaked at 223 and 210 MiB, the five under 1.03 at 245-252
  // (results/hw/h200-deep-tail-2, every-policy pass).
  RunConfig c = seed_repro(32);
  c.scenario = "conv-autotune";
  c.policy = "batched-callback";
  const std::unique_ptr<results::JobFarm> farm = results::make_thread_farm(2);
  const PacedSamples s = *run_paced_samples(load_scenario("conv-autotune"), c, load_platform_spread(kCalibration), 100,
                                            {1.0, 2.0}, *farm);
  REQUIRE(s.points.size() == 2);
  CHECK(s.points[0].peak_bytes_in_use.median == summarize(s.base).peak_bytes_in_use.median);
  CHECK(s.points[1].peak_bytes_in_use.median < s.points[0].peak_bytes_in_use.median);
}
