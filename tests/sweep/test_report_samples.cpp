// The report of a sampled sweep (`allocsim sweep --samples`): wherever report.md and headline.md
// show manifest corruption they give each point's rate with its 95% interval, "12.5% [9.1, 16.6]",
// computed from the point's counts; an unsampled sweep's report has none of it; malformed sample
// summaries in results.json are ReportErrors.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <unistd.h>

#include "sweep_fixtures.h"
#include "allocsim/results/report.h"
#include "fake_jobs.h"
#include "sampled_sweep.h"
#include "slurp.h"

namespace fs = std::filesystem;
using namespace allocsim;
using allocsim::test::slurp;

namespace {

fs::path fresh_dir(const std::string& name) { return allocsim::test::fresh_sweep_dir("report-samples", name); }

results::SweepOptions quiet() { return allocsim::test::quiet_sweep(2); }

/// "12.5% [9.1, 16.6]", written here from binomial_interval, not with the report's formatter.
std::string expected_rate(const SampleSummary& s) {
  const auto [lo, hi] = binomial_interval(s.samples_with_manifest, s.samples);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.1f%% [%.1f, %.1f]", 100.0 * s.samples_with_manifest / s.samples, 100 * lo, 100 * hi);
  return buf;
}

}  // namespace

TEST_CASE("report of a sampled sweep: each point's manifest corruption with its 95% interval", "[sweep-samples]") {
  const auto dir = fresh_dir("sampled");
  const auto out = results::run_sampled_sweep(test::sampled_spec(40), dir, test::SampledPoints(40), quiet());
  results::ReportOptions ro;
  ro.plots = false;
  results::write_report(dir, ro);
  const std::string md = slurp(dir / "report.md"), headline = slurp(dir / "headline.md");

  CHECK(md.find("× 40 samples (seeds 1–40, every cost drawn from the spread of `" + test::kSpreadPlatform + "`)") !=
        std::string::npos);
  CHECK(std::regex_search(md, std::regex(R"(\| manifest races \| +manifest corruption \|)")));
  CHECK(md.find("### Over the samples") != std::string::npos);
  // Every point's rate is in the report: in its summary table row and in the samples section.
  const SampleSummary* racy = nullptr;
  for (const SampleSummary& s : out.samples) {
    INFO(s.policy << " semaphore " << s.semaphore);
    const std::string rate = expected_rate(s);
    std::size_t count = 0;
    for (std::size_t at = md.find(rate); at != std::string::npos; at = md.find(rate, at + 1)) ++count;
    CHECK(count >= 2);
    if (s.semaphore == 32 && s.samples_with_manifest > 0) racy = &s;
  }
  // The verdict, and the headline a README quotes, name the racy option's rate at semaphore 32 and
  // the interval of the options that had none.
  REQUIRE(racy);
  CHECK(0 < racy->samples_with_manifest);
  const std::string line = "Manifest corruption at semaphore 32 (share of samples with one in any execution, 95% "
                           "Clopper-Pearson interval): `immediate` + `none` " +
                           expected_rate(*racy) + "; every other option 0.0% [0.0, ";
  CHECK(md.find("- " + line) != std::string::npos);
  CHECK(headline.find("- " + line) != std::string::npos);
  // Each execution some sample corrupted has a column, its rate with an interval.
  CHECK(std::regex_search(md, std::regex(R"(\| +execution \d+ \|)")));
  CHECK(std::regex_search(md, std::regex(R"(\| +\d+\.\d% \[\d+\.\d, \d+\.\d\] \|)")));
  fs::remove_all(dir);
}

TEST_CASE("report of an unsampled sweep: no rate columns and no samples section", "[sweep-samples]") {
  const auto dir = fresh_dir("unsampled");
  results::run_sweep(test::fake_spec(), dir, test::fake_run, quiet());
  results::ReportOptions ro;
  ro.plots = false;
  results::write_report(dir, ro);
  const std::string md = slurp(dir / "report.md");
  CHECK(md.find("manifest corruption") == std::string::npos);
  CHECK(md.find("Manifest corruption") == std::string::npos);
  CHECK(md.find("Over the samples") == std::string::npos);
  CHECK_FALSE(fs::exists(dir / "samples.csv"));
  fs::remove_all(dir);
}

TEST_CASE("report: a malformed sample summary in results.json is a ReportError", "[sweep-samples]") {
  const auto dir = fresh_dir("malformed");
  results::run_sampled_sweep(test::sampled_spec(3), dir, test::SampledPoints(3), quiet());
  std::string json = slurp(dir / "results.json");
  const auto at = json.find("\"manifest_by_execution\"");
  REQUIRE(at != std::string::npos);
  json.replace(at, std::string("\"manifest_by_execution\"").size(), "\"manifest_by_executio\"");
  std::ofstream(dir / "results.json", std::ios::binary | std::ios::trunc) << json;
  CHECK_THROWS_WITH(results::read_report_input(dir), Catch::Contains("samples 0"));
  fs::remove_all(dir);
}
