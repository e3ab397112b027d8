// Issue 19: how a sweep scales over MPI ranks, and what the job farm costs per job. Run it under
// mpirun; rank 0 runs the benchmarks, the other ranks serve the farm's jobs:
//
//   mpirun --oversubscribe --allow-run-as-root -np 2 build/bench/bench_mpi
//
// BM_Sweep/one_rank is a sweep of 1,008 jobs on one worker thread of rank 0 (what one rank of
// mpirun -np 1 gives); BM_Sweep/all_ranks the same sweep on every rank, one worker thread each.
// Their ratio, printed at the end, is the speed-up (target: >= 1.8 at 2 ranks on the project's
// 2-core machine). BM_Dispatch sends 20,000 jobs that do nothing through the farm: its time per
// job is the overhead the farm adds to each job: through MPI (rank 0 dispatches, the other ranks run
// every job) and through one thread of rank 0 for reference.
// The sweep's jobs are conv-autotune with 32 epochs of 16 steps (a few ms each, so the ratio
// measures the farm, not MPI's start-up): all policies x all guards x 6 capacities x 6 seeds.
#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "allocsim/results/job_farm.h"
#include "allocsim/results/runner.h"
#include "allocsim/results/sweep.h"
#include "allocsim/scenarios/loader.h"

namespace {
namespace res = allocsim::results;
namespace fs = std::filesystem;

constexpr std::size_t kDispatchJobs = 20'000;
const std::string kNoop = "noop";  // the input of a dispatch job: run nothing

struct Sweep {
  allocsim::RunConfig base;
  allocsim::Scenario scenario;
  res::SweepSpec spec;
  std::vector<res::SweepJob> jobs;
  res::JobFn run_job;
  Sweep() {
    base.scenario = "conv-autotune";
    base.sets.set("epochs", 32);
    base.sets.set("steps", 16);
    scenario = allocsim::load_for_run(base);
    spec.scenario = "conv-autotune";
    for (const auto& p : allocsim::list_policies()) spec.policies.push_back(p.name);
    for (const auto& g : allocsim::list_guards()) spec.guards.push_back(g.name);
    spec.semaphores = {1, 2, 4, 8, 16, 32};
    spec.seeds = 6;
    spec.base_seed = scenario.seed;
    spec.sets = {{"epochs", "32"}, {"steps", "16"}};
    jobs = res::expand_jobs(spec);
    run_job = [this](const res::SweepJob& j) {
      allocsim::RunConfig c = base;
      c.policy = j.policy;
      c.guard = j.guard;
      c.semaphore = j.semaphore;
      c.seed = j.seed;
      return allocsim::run_one(scenario, c);
    };
  }
};

Sweep& sweep() {
  static Sweep s;
  return s;
}

res::JobHandler worker_handler() {
  static const res::JobHandler sweep_job = res::sweep_job_handler(sweep().spec, sweep().jobs, sweep().run_job);
  return [](std::size_t i, const std::string& input) { return input == kNoop ? std::string() : sweep_job(i, input); };
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// The fraction of the last run's jobs rank 0 ran (the rest went through MPI).
double rank0_share(const res::JobFarm& farm) {
  const std::vector<std::size_t> by_rank = farm.jobs_by_rank();
  std::size_t all = 0;
  for (std::size_t n : by_rank) all += n;
  return all ? double(by_rank[0]) / double(all) : 0;
}

void BM_Sweep(benchmark::State& state, bool all_ranks) {
  const fs::path dir = fs::temp_directory_path() / ("allocsim-bench-mpi-" + std::to_string(all_ranks));
  std::unique_ptr<res::JobFarm> one = res::make_thread_farm(1);
  res::SweepOptions o;
  o.farm = all_ranks ? &res::JobFarm::get() : one.get();
  o.force = true;
  o.progress = res::ProgressStyle::Off;
  for (auto _ : state) benchmark::DoNotOptimize(res::run_sweep(sweep().spec, dir, sweep().run_job, o));
  state.counters["ranks"] = all_ranks ? res::JobFarm::get().ranks() : 1;
  state.counters["jobs"] = double(sweep().jobs.size());
  state.counters["rank0_share"] = rank0_share(*o.farm);
  fs::remove_all(dir);
}
BENCHMARK_CAPTURE(BM_Sweep, one_rank, false)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);
BENCHMARK_CAPTURE(BM_Sweep, all_ranks, true)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

void BM_Dispatch(benchmark::State& state, bool mpi) {
  std::unique_ptr<res::JobFarm> one = res::make_thread_farm(1);
  res::JobFarm& farm = mpi ? res::JobFarm::get() : *one;
  res::FarmRun run;
  for (std::size_t i = 0; i < kDispatchJobs; ++i) run.todo.push_back(i);
  run.input = [](std::size_t) { return kNoop; };
  run.collector_runs_jobs = !mpi;  // through MPI: every job to another rank
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = thread_cpu_seconds();
  for (auto _ : state) benchmark::DoNotOptimize(farm.run(run, worker_handler(), [](std::size_t, std::string&&) {}));
  const double jobs = double(kDispatchJobs) * double(state.iterations());
  state.counters["ranks"] = mpi ? farm.ranks() : 1;
  state.counters["rank0_share"] = rank0_share(farm);
  state.counters["us_per_job"] = 1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count() / jobs;
  state.counters["collector_cpu_us_per_job"] = 1e6 * (thread_cpu_seconds() - cpu0) / jobs;
}
BENCHMARK_CAPTURE(BM_Dispatch, mpi, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch, one_thread, false)->Unit(benchmark::kMillisecond)->UseRealTime();

// The sweep's cost per job beyond the job itself: 20,000 jobs that return a ready result (one
// real run's) through run_sweep on one thread, so each costs only what every job costs the sweep:
// its record written and parsed back on the worker's side, appended to the journal and parsed on
// the collector's.
void BM_SweepPerJob(benchmark::State& state) {
  const fs::path dir = fs::temp_directory_path() / "allocsim-bench-mpi-per-job";
  allocsim::RunConfig c = sweep().base;
  c.policy = "immediate";
  c.guard = "none";
  const allocsim::RunResult ready = allocsim::run_one(sweep().scenario, c);
  allocsim::results::SweepSpec spec = sweep().spec;
  spec.seeds = int(kDispatchJobs / (spec.policies.size() * spec.guards.size() * spec.semaphores.size()));
  std::unique_ptr<res::JobFarm> one = res::make_thread_farm(1);
  res::SweepOptions o;
  o.farm = one.get();
  o.force = true;
  o.progress = res::ProgressStyle::Off;
  std::size_t jobs = 0;
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = thread_cpu_seconds();
  for (auto _ : state) jobs += res::run_sweep(spec, dir, [&](const res::SweepJob&) { return ready; }, o).total;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  state.counters["us_per_job"] = 1e6 * wall / double(jobs);
  // This thread is the collector: what it spends per job bounds how many ranks it can serve.
  state.counters["collector_cpu_us_per_job"] = 1e6 * (thread_cpu_seconds() - cpu0) / double(jobs);
  fs::remove_all(dir);
}
BENCHMARK(BM_SweepPerJob)->Unit(benchmark::kMillisecond)->UseRealTime();

/// Keeps the real time of each run, to print the speed-up measured in this one run.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) seconds[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> seconds;
};

}  // namespace

int main(int argc, char** argv) {
  res::enable_mpi_farm();
  res::JobFarm& farm = res::JobFarm::get();
  if (!farm.is_collector()) {
    farm.serve(worker_handler());
    res::JobFarm::shutdown();
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto one = reporter.seconds.find("BM_Sweep/one_rank/iterations:2/real_time");
  const auto all = reporter.seconds.find("BM_Sweep/all_ranks/iterations:2/real_time");
  if (one != reporter.seconds.end() && all != reporter.seconds.end())
    std::cout << "speed-up of the sweep on " << farm.ranks() << " rank(s) over one: " << one->second / all->second
              << "x\n";
  if (farm.ranks() == 1) std::cout << "(one rank: run under mpirun -np 2 to measure the speed-up)\n";
  res::JobFarm::shutdown();
  return 0;
}
