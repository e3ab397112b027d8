// The sampled sweep (`allocsim sweep --samples`, results/sweep_sampled.h) over the real simulator:
// the same bytes for any thread count, each point's summary that of run_samples on its own, resume
// of missing points only, and bad specs refused.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "sweep_fixtures.h"
#include "allocsim/core/seeds.h"
#include "allocsim/results/report.h"
#include "allocsim/results/result_json.h"
#include "allocsim/results/sweep_record.h"
#include "fake_jobs.h"
#include "journal_edit.h"
#include "sampled_sweep.h"
#include "slurp.h"

namespace fs = std::filesystem;
using namespace allocsim;
using allocsim::test::slurp;

namespace {

fs::path fresh_dir(const std::string& name) { return allocsim::test::fresh_sweep_dir("sampled-test", name); }

results::SweepOptions quiet(unsigned threads) { return allocsim::test::quiet_sweep(threads); }

const char* const kOutputs[] = {"results.csv", "results.json", "samples.csv", "report.md", "headline.md"};

}  // namespace

TEST_CASE("sampled sweep: --jobs 1 and --jobs 2 write byte-identical files", "[sweep-samples]") {
  const auto spec = test::sampled_spec(24);
  const test::SampledPoints points(24);
  std::map<std::string, std::string> files[2];
  results::SweepOutcome outcome[2];
  for (unsigned t : {1u, 2u}) {
    const auto dir = fresh_dir("jobs" + std::to_string(t));
    outcome[t - 1] = results::run_sampled_sweep(spec, dir, points, quiet(t));
    results::ReportOptions ro;
    ro.plots = false;
    results::write_report(dir, ro);
    for (const char* f : kOutputs) files[t - 1][f] = slurp(dir / f);
    fs::remove_all(dir);
  }
  for (const char* f : kOutputs) {
    INFO(f);
    CHECK_FALSE(files[0][f].empty());
    CHECK(files[0][f] == files[1][f]);
  }

  // Each point is run_samples on its own, with the sweep's identity; its runs are its samples, in
  // order, seeds base + 0..N-1.
  const auto& out = outcome[0];
  REQUIRE(out.samples.size() == 4);
  REQUIRE(out.results.size() == 4 * 24);
  const auto jobs = results::expand_jobs(spec);
  for (const auto& j : jobs) {
    const SampleSet alone = points.alone(j, 2);
    CHECK(pretty_json(summary_to_json(out.samples[j.index])) == pretty_json(samples_to_json(alone)));
    for (std::size_t i = 0; i < 24; ++i) {
      const RunResult& r = out.results[j.index * 24 + i];
      CHECK(r.policy == j.policy);
      CHECK(r.semaphore == j.semaphore);
      CHECK(r.seed == seeds::nth(spec.base_seed, i));
      CHECK(results::run_result_json(r) == results::run_result_json(alone.runs[i]));
    }
  }
  // The spread matters here: immediate + none at semaphore 32 corrupts in some samples.
  CHECK(out.samples[1].policy == "immediate");
  CHECK(out.samples[1].semaphore == 32);
  CHECK(out.samples[1].samples_with_manifest > 0);
  CHECK(out.samples[3].samples_with_manifest == 0);
  // samples.csv: a header and one row per point.
  const std::string& csv = files[0]["samples.csv"];
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
}

TEST_CASE("sampled sweep: resume runs only the missing or broken samples, byte-identical", "[sweep-samples]") {
  const auto spec = test::sampled_spec(8);
  const test::SampledPoints points(8);
  const auto reference = fresh_dir("ref");
  results::run_sampled_sweep(spec, reference, points, quiet(2));

  const auto dir = fresh_dir("resume");
  results::run_sampled_sweep(spec, dir, points, quiet(2));
  // Samples of point 1 never recorded; one sample of point 2 cut off mid-write (sample j of the
  // sweep is sample j % 8 of point j / 8).
  test::rewrite_journals(dir, [](std::size_t j, const std::string& line) -> std::optional<std::string> {
    if (j / 8 == 1 && j % 8 >= 3) return std::nullopt;
    return j == 2 * 8 + 5 ? line.substr(0, line.size() / 2) : line;
  });
  std::mutex mu;
  std::set<std::pair<std::size_t, int>> ran;  // (point, sample)
  auto counting = [&](const results::SweepJob& j, int i) {
    {
      std::lock_guard lock(mu);
      ran.emplace(j.index, i);
    }
    return points(j, i);
  };
  const auto out = results::run_sampled_sweep(spec, dir, counting, quiet(2));
  CHECK(ran == std::set<std::pair<std::size_t, int>>{{1, 3}, {1, 4}, {1, 5}, {1, 6}, {1, 7}, {2, 5}});
  CHECK(out.ran == 6);
  CHECK(out.reused == 4 * 8 - 6);
  for (const char* f : {"results.csv", "results.json", "samples.csv"}) {
    INFO(f);
    CHECK(slurp(dir / f) == slurp(reference / f));
  }
  // Another number of samples is another sweep: refused without --force.
  CHECK_THROWS_AS(results::run_sampled_sweep(test::sampled_spec(9), dir, test::SampledPoints(9), quiet(2)),
                  results::SweepError);
  fs::remove_all(dir);
  fs::remove_all(reference);
}

TEST_CASE("sampled sweep: the manifest names the samples and the platform only when given", "[sweep-samples]") {
  const std::string unsampled = results::sweep_manifest_json(test::fake_spec());
  CHECK(unsampled.find("\"samples\"") == std::string::npos);
  CHECK(unsampled.find("\"platform\"") == std::string::npos);
  const std::string sampled = results::sweep_manifest_json(test::sampled_spec(5));
  CHECK(sampled.find("\"samples\":5") != std::string::npos);
  CHECK(sampled.find("\"platform\":\"" + test::kSpreadPlatform + "\"") != std::string::npos);
}

TEST_CASE("sampled sweep: bad specs are SweepErrors", "[sweep-samples]") {
  const auto dir = fresh_dir("bad");
  const test::SampledPoints points(3);
  auto spec = test::sampled_spec(3);
  spec.samples = 0;  // not a sampled sweep
  CHECK_THROWS_AS(results::run_sampled_sweep(spec, dir, points, quiet(1)), results::SweepError);
  spec.samples = -1;
  CHECK_THROWS_AS(results::run_sampled_sweep(spec, dir, points, quiet(1)), results::SweepError);
  auto unsampled = test::fake_spec();
  unsampled.samples = -1;
  CHECK_THROWS_AS(results::run_sweep(unsampled, dir, test::fake_run, quiet(1)), results::SweepError);
  // --samples replaces --seeds
  spec = test::sampled_spec(3);
  spec.seeds = 2;
  CHECK_THROWS_WITH(results::run_sampled_sweep(spec, dir, points, quiet(1)), Catch::Contains("replaces --seeds"));
  // A sampled spec is not an unsampled sweep's.
  spec = test::sampled_spec(3);
  CHECK_THROWS_AS(results::run_sweep(spec, dir, test::fake_run, quiet(1)), results::SweepError);
  fs::remove_all(dir);
}
