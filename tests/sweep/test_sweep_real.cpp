// The sweep over the real simulator (run_one on a built-in scenario): results.csv is byte-identical
// for 1 and 2 threads, and the rows are the runs `allocsim run` would produce one by one.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "slurp.h"
#include "allocsim/results/runner.h"
#include "allocsim/results/sweep.h"
#include "allocsim/results/sweep_record.h"
#include "allocsim/scenarios/loader.h"

namespace fs = std::filesystem;
using namespace allocsim;
using allocsim::test::slurp;

TEST_CASE("real sweep of seed-repro: --jobs 1 == --jobs 2, rows equal single runs") {
  const Scenario scenario = load_scenario("seed-repro");
  results::SweepSpec spec;
  spec.scenario = "seed-repro";
  spec.policies = {"immediate", "deferred-callback"};
  spec.guards = {"none", "wait-compute"};
  spec.semaphores = {1, 8};
  spec.seeds = 2;
  spec.base_seed = scenario.seed;
  auto job = [&](const results::SweepJob& j) {
    RunConfig c;
    c.scenario = spec.scenario;
    c.policy = j.policy;
    c.guard = j.guard;
    c.semaphore = j.semaphore;
    c.seed = j.seed;
    return run_one(scenario, c);
  };
  std::string csv[2];
  for (unsigned t : {1u, 2u}) {
    auto dir = fs::temp_directory_path() / ("allocsim-sweep-real-" + std::to_string(t) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    results::SweepOptions o;
    o.threads = t;
    o.progress = results::ProgressStyle::Off;
    auto out = results::run_sweep(spec, dir, job, o);
    REQUIRE(out.results.size() == 16);
    csv[t - 1] = slurp(dir / "results.csv");
    fs::remove_all(dir);
  }
  CHECK(csv[0] == csv[1]);
  // Row i is exactly the run of job i.
  auto jobs = results::expand_jobs(spec);
  std::vector<RunResult> singles;
  for (const auto& j : jobs) singles.push_back(job(j));
  CHECK(results::sweep_csv_text(singles) == csv[0]);
  // The seed-repro hazard: immediate + none races in at least one run (otherwise this sweep tests nothing).
  bool raced = false;
  for (const auto& r : singles) raced |= r.policy == "immediate" && r.guard == "none" && r.races_latent > 0;
  CHECK(raced);
}
