// A sampled sweep over the real simulator, set up as `allocsim sweep --samples` sets it up (the
// scenario loaded once at its own seed, every point's samples drawn from the H200's spread): shared
// by the sampled runner's tests and the report's.
#pragma once
#include <string>

#include "allocsim/results/runner.h"
#include "allocsim/results/samples.h"
#include "allocsim/results/sweep_sampled.h"
#include "allocsim/scenarios/loader.h"

namespace allocsim::test {

inline const std::string kSpreadPlatform = std::string(ALLOCSIM_SOURCE_DIR) + "/results/hw/h200-samples/calibration.json";

/// seed-repro: `immediate` + `none` corrupts at semaphore 32 in some executions, `deferred-callback`
/// does not; two capacities, so the report has more than one table.
inline results::SweepSpec sampled_spec(int samples) {
  results::SweepSpec s;
  s.scenario = "seed-repro";
  s.policies = {"immediate", "deferred-callback"};
  s.guards = {"none"};
  s.semaphores = {1, 32};
  s.base_seed = load_scenario("seed-repro").seed;
  s.platform = kSpreadPlatform;
  s.samples = samples;
  return s;
}

struct SampledPoints {
  Scenario scenario = load_scenario("seed-repro");
  PlatformSpread spread = spread_for_samples(kSpreadPlatform);
  int samples;
  explicit SampledPoints(int n) : samples(n) {}

  RunConfig config(const results::SweepJob& j) const {
    RunConfig c;
    c.scenario = "seed-repro";
    c.platform_file = kSpreadPlatform;
    c.policy = j.policy;
    c.guard = j.guard;
    c.semaphore = j.semaphore;
    c.seed = j.seed;
    return c;
  }
  /// Sample i of the point, as the CLI's job function runs it.
  SampleRun operator()(const results::SweepJob& j, int i) const { return run_sample(scenario, config(j), spread, i); }
  /// The whole point on its own (run_samples), to compare a sweep's point with.
  SampleSet alone(const results::SweepJob& j, int threads) const {
    return run_samples(scenario, config(j), spread, samples, threads);
  }
};

}  // namespace allocsim::test
