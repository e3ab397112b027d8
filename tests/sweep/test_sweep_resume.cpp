// Output independent of the thread count, and resume: an interrupted sweep re-run into the same
// folder runs exactly the missing jobs and ends byte-identical to an uninterrupted one.
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "sweep_fixtures.h"
#include "slurp.h"
#include "allocsim/results/sweep.h"
#include "fake_jobs.h"
#include "journal_edit.h"

namespace fs = std::filesystem;
using namespace allocsim;
using allocsim::test::slurp;

namespace {

fs::path fresh_dir(const std::string& name) { return allocsim::test::fresh_sweep_dir("sweep-test", name); }

results::SweepOptions quiet(unsigned threads) { return allocsim::test::quiet_sweep(threads); }

/// Counts and remembers which jobs ran.
struct Recorder {
  std::mutex mu;
  std::set<std::size_t> ran;
  results::JobFn fn() {
    return [this](const results::SweepJob& j) {
      {
        std::lock_guard lock(mu);
        ran.insert(j.index);
      }
      return test::fake_run_scrambled(j);
    };
  }
};

}  // namespace

TEST_CASE("jobs 1, 2 and 4 (--jobs) give byte-identical results.csv and results.json") {
  auto spec = test::fake_spec();
  std::string csv[3], json[3];
  unsigned threads[3] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    auto dir = fresh_dir("jobs" + std::to_string(threads[i]));
    auto out = results::run_sweep(spec, dir, test::fake_run_scrambled, quiet(threads[i]));
    CHECK(out.ran == out.total);
    csv[i] = slurp(dir / "results.csv");
    json[i] = slurp(dir / "results.json");
    fs::remove_all(dir);
  }
  REQUIRE_FALSE(csv[0].empty());
  CHECK(csv[0] == csv[1]);
  CHECK(csv[0] == csv[2]);
  CHECK(json[0] == json[1]);
  CHECK(json[0] == json[2]);
}

TEST_CASE("resume: deleted and truncated job records are re-run, nothing else") {
  auto spec = test::fake_spec();
  auto reference = fresh_dir("ref");
  results::run_sweep(spec, reference, test::fake_run, quiet(2));

  auto dir = fresh_dir("resume");
  results::run_sweep(spec, dir, test::fake_run, quiet(2));
  // Interrupt: three records never written, one cut off mid-write, one holding another job's run
  // under its index, and a torn last line (a crash of the machine mid-append) for job 7, whose
  // whole record comes earlier and is used.
  const auto records = test::journal_records(dir);
  test::rewrite_journals(dir, [&](std::size_t i, const std::string& line) -> std::optional<std::string> {
    if (i == 0 || i == 5 || i == 23) return std::nullopt;
    if (i == 11) return line.substr(0, line.size() / 2);
    if (i == 14) return "{\"index\":14," + records.at(3).substr(std::string("{\"index\":3,").size());
    return line;
  });
  std::ofstream(dir / "jobs" / "edited.jsonl", std::ios::binary | std::ios::app) << records.at(7).substr(0, 40);
  fs::remove(dir / "results.csv");

  Recorder rec;
  auto out = results::run_sweep(spec, dir, rec.fn(), quiet(2));
  CHECK(rec.ran == std::set<std::size_t>{0, 5, 11, 14, 23});
  CHECK(out.ran == 5);
  CHECK(out.reused == out.total - 5);
  CHECK(slurp(dir / "results.csv") == slurp(reference / "results.csv"));
  CHECK(slurp(dir / "results.json") == slurp(reference / "results.json"));

  // A complete folder: a re-run runs nothing and rewrites the same outputs.
  Recorder again;
  auto out2 = results::run_sweep(spec, dir, again.fn(), quiet(2));
  CHECK(again.ran.empty());
  CHECK(out2.ran == 0);
  CHECK(slurp(dir / "results.csv") == slurp(reference / "results.csv"));
  fs::remove_all(dir);
  fs::remove_all(reference);
}

TEST_CASE("a failed job is named, every other job finishes and is recorded, a re-run resumes") {
  auto spec = test::fake_spec();
  auto dir = fresh_dir("fail");
  std::atomic<int> calls{0};
  auto failing = [&](const results::SweepJob& j) {
    if (j.index == 9) throw std::runtime_error("simulated failure");
    ++calls;
    return test::fake_run(j);
  };
  const auto jobs = results::expand_jobs(spec);
  try {
    results::run_sweep(spec, dir, failing, quiet(2));
    FAIL("no SweepJobsFailed");
  } catch (const results::SweepJobsFailed& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("1 job(s) failed"));
    CHECK_THAT(what, Catch::Contains("job 9 (policy " + jobs[9].policy + ", guard " + jobs[9].guard));
    CHECK_THAT(what, Catch::Contains("simulated failure"));
  }
  CHECK_FALSE(fs::exists(dir / "results.csv"));  // no partial outputs
  CHECK(std::size_t(calls) == jobs.size() - 1);
  const auto records = test::journal_records(dir);
  for (std::size_t i = 0; i < jobs.size(); ++i) CHECK(records.count(i) == (i == 9 ? 0u : 1u));
  Recorder rec;
  auto out = results::run_sweep(spec, dir, rec.fn(), quiet(2));
  CHECK(out.reused == jobs.size() - 1);
  CHECK(rec.ran == std::set<std::size_t>{9});
  fs::remove_all(dir);
}

TEST_CASE("a folder holding another sweep is refused unless forced") {
  auto spec = test::fake_spec();
  auto dir = fresh_dir("mismatch");
  results::run_sweep(spec, dir, test::fake_run, quiet(2));
  auto other = spec;
  other.seeds = 3;
  CHECK_THROWS_AS(results::run_sweep(other, dir, test::fake_run, quiet(2)), results::SweepError);
  other = spec;
  other.sets = {{"callback_latency_ns", "50000"}};
  CHECK_THROWS_AS(results::run_sweep(other, dir, test::fake_run, quiet(2)), results::SweepError);
  auto forced = quiet(2);
  forced.force = true;
  Recorder rec;
  auto out = results::run_sweep(other, dir, rec.fn(), forced);
  CHECK(out.ran == out.total);  // nothing of the old sweep reused
  CHECK(rec.ran.size() == out.total);
  // ... and now the folder belongs to the new arguments.
  Recorder again;
  CHECK(results::run_sweep(other, dir, again.fn(), quiet(2)).ran == 0);
  fs::remove_all(dir);
}

TEST_CASE("force reruns every job of the same sweep (a rebuilt binary must not reuse old runs)") {
  auto spec = test::fake_spec();
  auto dir = fresh_dir("force-same");
  results::run_sweep(spec, dir, test::fake_run, quiet(2));
  auto forced = quiet(2);
  forced.force = true;
  Recorder rec;
  auto out = results::run_sweep(spec, dir, rec.fn(), forced);
  CHECK(out.reused == 0);
  CHECK(rec.ran.size() == out.total);
  fs::remove_all(dir);
}
