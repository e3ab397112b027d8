// `allocsim run --samples` (issue 17): 1,000 samples of conv-autotune under immediate + none with
// the H200's spread (results/hw/h200-tail/calibration.json), on 1 and 2 threads, next to one
// plain run of the same program. Target: 1,000 samples under 5 s on the project's 2-core machine;
// read the per-sample cost as BM_Samples1000 / 1000 against BM_OneRun. BM_Samples1000CheckSweep:
// the same with op_check_sweep.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "allocsim/results/platform_io.h"
#include "allocsim/results/runner.h"
#include "allocsim/results/samples.h"
#include "allocsim/scenarios/loader.h"

namespace {

const std::string kCalibration = std::string(ALLOCSIM_SOURCE_DIR) + "/results/hw/h200-tail/calibration.json";

allocsim::RunConfig config() {
  allocsim::RunConfig c;
  c.scenario = "conv-autotune";
  c.policy = "immediate";
  c.guard = "none";
  c.semaphore = 32;
  c.platform_file = kCalibration;
  return c;
}

void BM_OneRun(benchmark::State& state) {
  const allocsim::Scenario s = allocsim::load_scenario("conv-autotune");
  const allocsim::RunConfig c = config();
  for (auto _ : state) benchmark::DoNotOptimize(allocsim::run_one(s, c));
}
BENCHMARK(BM_OneRun)->Unit(benchmark::kMillisecond);

/// 1,000 samples of `c` on state.range(0) threads, or a skip when the calibration is missing.
void samples_1000(benchmark::State& state, const allocsim::RunConfig& c) {
  if (!std::filesystem::exists(kCalibration)) {
    state.SkipWithError(("missing " + kCalibration).c_str());
    return;
  }
  const allocsim::Scenario s = allocsim::load_scenario("conv-autotune");
  const allocsim::PlatformSpread spread = allocsim::load_platform_spread(kCalibration);
  for (auto _ : state)
    benchmark::DoNotOptimize(allocsim::run_samples(s, c, spread, 1000, int(state.range(0))));
}

void BM_Samples1000(benchmark::State& state) { samples_1000(state, config()); }
BENCHMARK(BM_Samples1000)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same with the check pass sweeping its reads (op_check_sweep 1, which calibrations since
// 2026-12-02 write; h200-tail's predates it): each read is emitted in 1 MiB parts.
void BM_Samples1000CheckSweep(benchmark::State& state) {
  allocsim::RunConfig c = config();
  if (std::filesystem::exists(kCalibration)) {
    c.platform = allocsim::load_platform_file(kCalibration);
    c.platform->op_check_sweep = 1;
  }
  samples_1000(state, c);
}
BENCHMARK(BM_Samples1000CheckSweep)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
