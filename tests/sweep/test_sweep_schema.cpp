// results.csv / results.json schema: docs/design.md section 6 columns first and in contract order,
// one row per run in job order, and the JSON carrying the same values as the CSV.
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sweep_fixtures.h"
#include "slurp.h"
#include "allocsim/results/sweep.h"
#include "allocsim/results/sweep_record.h"
#include "fake_jobs.h"

namespace fs = std::filesystem;
using namespace allocsim;
using allocsim::test::slurp;

namespace {

// Splits on `sep`, keeping empty fields (a trailing empty field too); no quoting (the fake data has none).
std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == sep) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

fs::path fresh_dir(const std::string& name) { return allocsim::test::fresh_sweep_dir("sweep-test", name); }

// docs/design.md section 6, copied here on purpose: the test fails if the writer drifts from it.
const std::vector<std::string> kContract = {
    "scenario", "policy", "guard", "semaphore", "seed", "races.latent", "races.manifest",
    "memory.peak_bytes_in_use", "memory.peak_live_bytes", "memory.peak_pending_bytes", "memory.peak_pool_bytes",
    "time.makespan_ns", "time.host_stall_ns", "counts.allocs", "counts.frees", "counts.callbacks", "counts.ooms",
    "counts.fallbacks"};

}  // namespace

TEST_CASE("expand_jobs is policy-major, seeds = base + 0..N-1") {
  auto jobs = results::expand_jobs(test::fake_spec());
  REQUIRE(jobs.size() == 3 * 2 * 2 * 2);
  CHECK(jobs[0].policy == "immediate");
  CHECK(jobs[0].guard == "none");
  CHECK(jobs[0].semaphore == 1);
  CHECK(jobs[0].seed == 7);
  CHECK(jobs[1].seed == 8);
  CHECK(jobs[2].semaphore == 4);
  CHECK(jobs[4].guard == "wait-compute");
  CHECK(jobs[8].policy == "deferred-callback");
  for (std::size_t i = 0; i < jobs.size(); ++i) CHECK(jobs[i].index == i);
}

TEST_CASE("results.csv: contract columns first, in order - one row per job in job order") {
  auto dir = fresh_dir("schema");
  auto spec = test::fake_spec();
  results::SweepOptions o;
  o.progress = results::ProgressStyle::Off;
  auto outcome = results::run_sweep(spec, dir, test::fake_run, o);
  auto lines = split(slurp(dir / "results.csv"), '\n');
  REQUIRE(lines.size() == 2 + outcome.total);  // header, rows, "" after the last '\n'
  CHECK(lines.back().empty());
  auto header = split(lines[0], ',');
  REQUIRE(header.size() >= kContract.size());
  for (std::size_t i = 0; i < kContract.size(); ++i) CHECK(header[i] == kContract[i]);
  auto jobs = results::expand_jobs(spec);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto row = split(lines[i + 1], ',');
    REQUIRE(row.size() == header.size());
    RunResult want = test::fake_run(jobs[i]);
    CHECK(row[0] == "fake");
    CHECK(row[1] == jobs[i].policy);
    CHECK(row[2] == jobs[i].guard);
    CHECK(row[3] == std::to_string(jobs[i].semaphore));
    CHECK(row[4] == std::to_string(jobs[i].seed));
    CHECK(row[5] == std::to_string(want.races_latent));
    CHECK(row[7] == std::to_string(want.peak_bytes_in_use));
    CHECK(row[12] == std::to_string(want.host_stall_ns));
  }
  fs::remove_all(dir);
}

TEST_CASE("results.json: sweep arguments and one section-6 object per run, same values as the CSV") {
  auto dir = fresh_dir("json");
  auto spec = test::fake_spec();
  results::SweepOptions o;
  o.progress = results::ProgressStyle::Off;
  results::run_sweep(spec, dir, test::fake_run, o);
  auto v = boost::json::parse(slurp(dir / "results.json"));
  REQUIRE(v.is_object());
  const auto& sweep = v.at("sweep").as_object();
  CHECK(sweep.at("scenario").as_string() == "fake");
  CHECK(sweep.at("seeds").as_int64() == 2);
  CHECK(sweep.at("policies").as_array().size() == 3);
  const auto& runs = v.at("runs").as_array();
  auto jobs = results::expand_jobs(spec);
  REQUIRE(runs.size() == jobs.size());
  auto csv = split(slurp(dir / "results.csv"), '\n');
  auto header = split(csv[0], ',');
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i].as_object();
    auto row = split(csv[i + 1], ',');
    // Every contract column is a (nested) JSON key with the CSV's value.
    for (std::size_t c = 0; c < kContract.size(); ++c) {
      const std::string& name = kContract[c];
      auto dot = name.find('.');
      const boost::json::value& x =
          dot == std::string::npos ? r.at(name) : r.at(name.substr(0, dot)).as_object().at(name.substr(dot + 1));
      std::string text = x.is_string() ? std::string(x.as_string()) : boost::json::serialize(x);
      INFO("run " << i << " column " << name);
      CHECK(text == row[c]);
    }
    CHECK_FALSE(r.contains("findings"));  // sweeps keep counts, not per-run race reports
  }
  fs::remove_all(dir);
}

TEST_CASE("run_result_from_json round-trips and rejects objects without the contract keys") {
  results::SweepJob j{0, "host-sync", "wait-compute", 4, 9};
  RunResult r = test::fake_run(j);
  r.completed = false;
  r.error = "deadlock: host waits on \"x\", stream 2";
  r.warnings = {"fallback: enqueue failed"};
  auto back = results::run_result_from_json(results::run_result_json(r));
  REQUIRE(back);
  CHECK(results::sweep_csv_text({*back}) == results::sweep_csv_text({r}));
  CHECK(back->warnings == r.warnings);
  std::string why;
  CHECK_FALSE(results::run_result_from_json("{\"scenario\":\"x\"}", &why));
  CHECK(why.find("policy") != std::string::npos);
  CHECK_FALSE(results::run_result_from_json("[1,2", &why));
  CHECK_FALSE(results::run_result_from_json("", &why));
}

TEST_CASE("bad sweep specs are SweepErrors, not crashes") {
  auto dir = fresh_dir("bad");
  results::SweepOptions o;
  o.progress = results::ProgressStyle::Off;
  auto spec = test::fake_spec();
  spec.policies.push_back("immediate");
  CHECK_THROWS_AS(results::run_sweep(spec, dir, test::fake_run, o), results::SweepError);
  spec = test::fake_spec();
  spec.semaphores = {0};
  CHECK_THROWS_AS(results::run_sweep(spec, dir, test::fake_run, o), results::SweepError);
  spec = test::fake_spec();
  spec.seeds = 0;
  CHECK_THROWS_AS(results::run_sweep(spec, dir, test::fake_run, o), results::SweepError);
  spec = test::fake_spec();
  spec.guards.clear();
  CHECK_THROWS_AS(results::run_sweep(spec, dir, test::fake_run, o), results::SweepError);
  fs::remove_all(dir);
}
