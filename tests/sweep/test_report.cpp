// The report from a small fixed results set (tests/sweep/data/small): report.md must equal the
// committed golden (plots disabled, so gnuplot's presence does not matter), and the verdict must
// follow from the data. Regenerate the golden after an intended change with
//   ALLOCSIM_UPDATE_GOLDEN=1 build/tests/test_sweep "[golden]"
// and read the diff before committing it.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "slurp.h"
#include "allocsim/results/report.h"
#include "allocsim/results/sweep_series.h"
#include "fake_jobs.h"
#include "test_inputs.h"

namespace fs = std::filesystem;
using namespace allocsim;
using allocsim::test::slurp;

namespace {

const fs::path kData = fs::path(ALLOCSIM_SOURCE_DIR) / "tests" / "sweep" / "data" / "small";

fs::path copy_of_data(const std::string& name) {
  auto d = fs::temp_directory_path() / ("allocsim-report-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  fs::copy_file(kData / "results.json", d / "results.json");
  fs::copy_file(kData / "memory_series.json", d / "memory_series.json");
  return d;
}

bool update_golden() {
  const char* v = std::getenv("ALLOCSIM_UPDATE_GOLDEN");
  return v && *v && std::string(v) != "0";
}

/// The fixed data set: the fake sweep plus a hand-made memory series.
void regenerate_data() {
  auto tmp = fs::temp_directory_path() / ("allocsim-report-gen-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  results::SweepOptions o;
  o.progress = results::ProgressStyle::Off;
  auto out = results::run_sweep(test::fake_spec(), tmp, test::fake_run, o);
  fs::create_directories(kData);
  fs::copy_file(tmp / "results.json", kData / "results.json", fs::copy_options::overwrite_existing);
  results::MemorySeries s{"wait-compute", 4, 7, {}};
  for (const auto& p : test::fake_spec().policies) {
    std::vector<results::MemorySample> samples;
    const std::uint64_t MiB = 1 << 20, rank = test::fake_policy_rank(p);
    for (int k = 0; k <= 20; ++k) {
      std::uint64_t live = (k % 5 + 1) * 8 * MiB, pending = (k % 3) * rank * MiB;
      samples.push_back({k * 100'000, live, pending, live + pending});
    }
    s.runs.emplace_back(p, samples);
  }
  std::ofstream(kData / "memory_series.json", std::ios::binary) << results::memory_series_json(s);
  fs::remove_all(tmp);
}

}  // namespace

TEST_CASE("report.md from the fixed results set matches the golden", "[golden]") {
  if (update_golden()) regenerate_data();
  auto dir = copy_of_data("golden");
  results::ReportOptions o;
  o.plots = false;
  results::write_report(dir, o);
  std::string got = slurp(dir / "report.md");
  if (update_golden()) std::ofstream(kData / "report.md", std::ios::binary) << got;
  std::string want = slurp(kData / "report.md");
  REQUIRE_FALSE(want.empty());
  CHECK(got == want);
  fs::remove_all(dir);
}

TEST_CASE("the verdict follows the data") {
  auto in = results::read_report_input(kData);
  REQUIRE(in.runs.size() == 24);
  std::string md = results::render_report_markdown(in, {{}, "disabled"});
  // immediate + none is the only racy option in the fake data: 5 options of 6 are race-free.
  CHECK(md.find("Race-free: 5 of 6 options.") != std::string::npos);
  CHECK(md.find("Racy (runs with a latent or manifest race): `immediate` + `none` (4/4 runs)") != std::string::npos);
  // Least device memory: every option reserves 768 MiB, so peak in-use decides: immediate (no
  // pending bytes) under the only guard where it is race-free.
  // Least policy-caused blocking: the wait-compute guard waits 2 µs and host-sync waits in the
  // policy, so deferred-callback + none (0 µs).
  CHECK(md.find("Least device memory among race-free options at semaphore 4: `immediate` + `wait-compute`") !=
        std::string::npos);
  CHECK(md.find(
            "Least policy-caused host blocking among race-free options at semaphore 4: `deferred-callback` + "
            "`none`") != std::string::npos);
  // deferred-callback withholds 3 MiB per semaphore unit: at 4, 12 MiB over immediate's 64.375 MiB.
  CHECK(md.find("÷ immediate") != std::string::npos);
  CHECK(md.find("+18.6%") != std::string::npos);
  CHECK(results::pick_plot_guard(in) == "wait-compute");
}

TEST_CASE("missing or malformed results are ReportErrors") {
  auto dir = fs::temp_directory_path() / ("allocsim-report-bad-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  CHECK_THROWS_AS(results::write_report(dir), results::ReportError);
  std::ofstream(dir / "results.json") << "{\"runs\":[{\"scenario\":\"x\"}]}";
  CHECK_THROWS_AS(results::write_report(dir), results::ReportError);
  std::ofstream(dir / "results.json", std::ios::trunc) << "not json";
  CHECK_THROWS_AS(results::write_report(dir), results::ReportError);
  CHECK_FALSE(fs::exists(dir / "report.md"));
  fs::remove_all(dir);
}

TEST_CASE("without gnuplot the report still has its tables and says why there are no plots") {
  auto dir = copy_of_data("nognuplot");
  results::ReportOptions o;
  o.gnuplot = "/nonexistent/gnuplot";
  auto out = results::write_report(dir, o);
  CHECK(out.plots.empty());
  std::string md = slurp(dir / "report.md");
  CHECK(md.find("No plots: gnuplot") != std::string::npos);
  CHECK(md.find("### Summary at semaphore 4") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("with gnuplot the three plots are PNG files", "[gnuplot]") {
  allocsim::test::require_tool(std::system("gnuplot -e 'exit' >/dev/null 2>&1") == 0, "gnuplot not installed");
  auto dir = copy_of_data("plots");
  auto out = results::write_report(dir, {});
  CHECK(out.plots ==
        std::vector<std::string>{"peak_vs_semaphore.png", "host_time_vs_peak.png", "memory_over_time.png"});
  for (const auto& p : out.plots) {
    std::string head = slurp(dir / p).substr(0, 8);
    CHECK(head == std::string("\x89PNG\r\n\x1a\n", 8));
    CHECK(slurp(dir / "report.md").find("](" + p + ")") != std::string::npos);
  }
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().rfind(".plots-tmp", 0) != 0);
  fs::remove_all(dir);
}

TEST_CASE("downsample keeps peaks, the ends and the bound") {
  std::vector<results::MemorySample> s;
  for (int i = 0; i < 10000; ++i) s.push_back({i * 10, 0, 0, static_cast<std::uint64_t>(i % 97 == 0 ? 1000 + i : i % 7)});
  auto d = results::downsample(s, 200);
  CHECK(d.size() <= 200);
  CHECK(d.back().t == s.back().t);
  std::uint64_t max_in = 0, max_out = 0;
  for (auto& x : s) max_in = std::max(max_in, x.in_use);
  for (auto& x : d) max_out = std::max(max_out, x.in_use);
  CHECK(max_out == max_in);
  for (std::size_t i = 1; i < d.size(); ++i) CHECK(d[i - 1].t < d[i].t);
  CHECK(results::downsample(s, 20000).size() == s.size());
}

TEST_CASE("MemorySampler keeps the last counters of each instant") {
  results::MemorySampler m;
  m.on_memory(0, {1, 0, 1, 2});
  m.on_memory(5, {2, 0, 2, 2});
  m.on_memory(5, {3, 1, 4, 4});
  m.on_memory(9, {0, 0, 0, 4});
  REQUIRE(m.samples().size() == 3);
  CHECK(m.samples()[1].live == 3);
  CHECK(m.samples()[1].in_use == 4);
}

TEST_CASE("the sweep manifest carries the program's number of executions to the report") {
  auto dir = fs::temp_directory_path() / ("allocsim-report-exec-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto spec = test::fake_spec();
  spec.executions = 3;
  results::SweepOptions o;
  o.progress = results::ProgressStyle::Off;
  results::run_sweep(spec, dir, test::fake_run, o);
  CHECK(results::read_report_input(dir).spec.executions == 3);
  // Capacity 4 is beyond the 3 executions: the report says so (fake runs differ at 1 and 4).
  results::write_report(dir, {false, "gnuplot"});
  CHECK(slurp(dir / "report.md")
            .find("What bounds the growth: the program has 3 executions, so from semaphore 3 on") !=
        std::string::npos);
  fs::remove_all(dir);
}

// README quotes the flagship headline between these markers; the block must be the committed
// headline.md, which must be what `allocsim report` renders from the committed results.json.
TEST_CASE("results/conv-autotune/headline.md is rendered from its results, and README quotes it verbatim") {
  const fs::path root = ALLOCSIM_SOURCE_DIR, flagship = root / "results" / "conv-autotune";
  const std::string headline = slurp(flagship / "headline.md");
  REQUIRE_FALSE(headline.empty());
  CHECK(results::render_headline_markdown(results::read_report_input(flagship)) == headline);
  CHECK(test::readme_quote("results/conv-autotune/headline.md") == headline);
}
