// `allocsim sweep SCENARIO`: the cross product policies x guards x semaphore capacities x seeds,
// run in parallel, resumable, written to DIR (results.csv, results.json, memory_series.json),
// then the report (`allocsim report DIR`). With --samples N each point (policy, guard, semaphore)
// instead plays the program N times with costs drawn from the --platform file's spread
// (sweep_sampled.h) and DIR also gets samples.csv. Exit status: 0 ok; 2 bad input (unknown
// scenario, policy or guard, bad --set, --samples without a spread, DIR holding another sweep
// without --force, unwritable DIR); 3 some jobs failed. Under mpirun every rank runs this command:
// rank 0 writes DIR and the report, the others serve jobs (job_farm.h).
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "allocsim/results/atomic_file.h"
#include "allocsim/results/job_farm.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/report.h"
#include "allocsim/results/resolve.h"
#include "allocsim/results/runner.h"
#include "allocsim/results/samples.h"
#include "allocsim/results/sweep.h"
#include "allocsim/results/sweep_sampled.h"
#include "allocsim/results/sweep_series.h"
#include "command.h"

namespace {
namespace res = allocsim::results;

struct SweepArgs {
  std::string scenario, policies = "all", guards = "all", semaphores, out, progress = "auto", platform;
  int seeds = 1;
  int samples = 0;  // > 0: a sampled sweep (sweep_sampled.h)
  unsigned jobs = 0;
  std::vector<std::string> sets;
  std::string shard;  // "INDEX/COUNT", "" = the whole sweep
  bool force = false, merge = false, no_report = false, no_plots = false;
};

std::vector<std::string> split_list(const std::string& text, const char* flag) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) throw res::SweepError(std::string(flag) + ": empty item in '" + text + "'");
    out.push_back(item);
  }
  if (out.empty()) throw res::SweepError(std::string(flag) + ": empty list");
  return out;
}

/// "all" -> every registered name; otherwise each name must be registered.
std::vector<std::string> resolve_names(const std::string& text, const std::vector<allocsim::RegistryEntry>& known,
                                       const char* flag) {
  std::vector<std::string> valid;
  for (const auto& e : known) valid.push_back(e.name);
  if (text == "all") return valid;
  auto names = split_list(text, flag);
  for (const auto& n : names)
    if (std::find(valid.begin(), valid.end(), n) == valid.end()) {
      std::string list;
      for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
      throw res::SweepError(std::string(flag) + ": unknown name '" + n + "' (valid: " + list + ", or all)");
    }
  return names;
}

std::vector<int> parse_semaphores(const std::string& text) {
  std::vector<int> out;
  for (const auto& item : split_list(text, "--semaphore")) {
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(item.c_str(), &end, 10);
    if (end != item.c_str() + item.size() || errno == ERANGE || v < 1 || v > (1 << 20))
      throw res::SweepError("--semaphore: '" + item + "' is not a capacity between 1 and 1048576");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

res::ProgressStyle parse_progress(const std::string& s) {
  if (s == "auto") return res::ProgressStyle::Auto;
  if (s == "bar") return res::ProgressStyle::Bar;
  if (s == "lines") return res::ProgressStyle::Lines;
  if (s == "off") return res::ProgressStyle::Off;
  throw res::SweepError("--progress: expected auto, bar, lines or off, got '" + s + "'");
}

/// One run per policy with a MemorySampler attached, for the report's memory-over-time plot.
/// `scenario` is the one loaded for the sweep's base seed, the seed these runs use.
res::MemorySeries record_series(const allocsim::Scenario& scenario, const res::SweepSpec& spec,
                                const allocsim::RunConfig& base, const std::string& guard) {
  res::MemorySeries s;
  s.guard = guard;
  s.semaphore = *std::max_element(spec.semaphores.begin(), spec.semaphores.end());
  s.seed = spec.base_seed;
  s.runs.resize(spec.policies.size());
  std::vector<std::jthread> pool;
  std::atomic<std::size_t> next{0};
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
    pool.emplace_back([&] {
      for (std::size_t i; (i = next++) < spec.policies.size();) {
        allocsim::RunConfig config = base;
        config.policy = spec.policies[i];
        config.guard = guard;
        config.semaphore = s.semaphore;
        config.seed = s.seed;
        config.detect_races = false;  // only the memory counters are needed
        res::MemorySampler sampler;
        allocsim::run_one(scenario, config, {&sampler});
        s.runs[i] = {spec.policies[i], res::downsample(sampler.samples(), 1500)};
      }
    });
  pool.clear();
  return s;
}

int run(const SweepArgs& a) {
  res::SweepSpec spec;
  spec.scenario = a.scenario;
  const std::vector<allocsim::SetItem> items = allocsim::parse_set_items(a.sets);
  for (const auto& item : items) spec.sets.emplace_back(item.key, item.text);
  allocsim::RunConfig base;
  base.scenario = a.scenario;
  base.sets = allocsim::set_params(items);
  // Checked first: a sampled sweep without a spread must fail before any loading or running.
  const allocsim::PlatformSpread spread = a.samples > 0 ? allocsim::spread_for_samples(a.platform) : allocsim::PlatformSpread{};
  if (!a.platform.empty()) {
    try {
      base.platform = allocsim::load_platform_file(a.platform);  // once, not once per run
    } catch (const allocsim::PlatformError& e) {
      throw allocsim::RunInputError(e.what());
    }
    spec.platform = a.platform;
  }
  // Loaded for the scenario's own seed: it gives the base seed, the default semaphore, the program
  // of the memory-series runs and of every sample; each unsampled job gets the program of its seed.
  const allocsim::Scenario scenario = allocsim::load_for_run(base);
  allocsim::ScenarioPerSeed per_seed(base);
  spec.policies = resolve_names(a.policies, allocsim::list_policies(), "--policies");
  spec.guards = resolve_names(a.guards, allocsim::list_guards(), "--guards");
  spec.semaphores = a.semaphores.empty() ? std::vector<int>{scenario.semaphore} : parse_semaphores(a.semaphores);
  spec.seeds = a.seeds;
  spec.samples = a.samples;
  spec.base_seed = scenario.seed;
  spec.executions = static_cast<int>(std::count_if(
      scenario.program.ops.begin(), scenario.program.ops.end(),
      [](const allocsim::HostOp& op) { return op.kind == allocsim::HostOpKind::BeginExecution; }));

  res::SweepOptions options;
  res::JobFarm& farm = res::JobFarm::get();
  options.farm = &farm;
  options.threads = a.jobs;
  options.force = a.force;
  options.progress = parse_progress(a.progress);
  if (!a.shard.empty()) options.shard = res::parse_shard(a.shard);
  options.merge = a.merge;
  if (options.merge && options.shard.active()) throw res::SweepError("--merge and --shard: give one of them");
  auto config_of = [&](const res::SweepJob& j) {
    allocsim::RunConfig config = base;
    config.policy = j.policy;
    config.guard = j.guard;
    config.semaphore = j.semaphore;
    config.seed = j.seed;
    return config;
  };
  const std::filesystem::path dir = a.out;
  res::SweepOutcome outcome;
  if (spec.samples > 0) {
    auto sample = [&](const res::SweepJob& j, int i) { return allocsim::run_sample(scenario, config_of(j), spread, i); };
    outcome = res::run_sampled_sweep(spec, dir, sample, options);
    if (!outcome.collector) return 0;  // a worker rank: it served the collector's samples
    std::cerr << "sweep: " << outcome.total / std::size_t(spec.samples) << " points x " << spec.samples
              << " samples (" << outcome.ran << " samples run now, " << outcome.reused << " resumed from "
              << (dir / "jobs").string() << ")\n";
  } else {
    auto job = [&](const res::SweepJob& j) { return allocsim::run_one(*per_seed.get(j.seed), config_of(j)); };
    outcome = res::run_sweep(spec, dir, job, options);
    if (!outcome.collector) return 0;  // a worker rank: it served the collector's jobs
    std::cerr << "sweep: " << outcome.total << " runs (" << outcome.ran << " run now, " << outcome.reused
              << " resumed from " << (dir / "jobs").string() << ")\n";
  }

  if (!outcome.outputs) {  // a shard: its records only
    std::cout << "shard     " << a.shard << ": " << outcome.ran << " " << (spec.samples > 0 ? "samples" : "runs")
              << " recorded in " << (dir / "jobs").string()
              << "\n          once every shard has run: the same command with --merge instead of --shard\n";
    return 0;
  }
  if (farm.ranks() > 1) {
    std::cerr << "sweep: on " << farm.ranks() << " MPI ranks, jobs run per rank: ";
    const std::vector<std::size_t> by_rank = farm.jobs_by_rank();
    for (std::size_t r = 0; r < by_rank.size(); ++r) std::cerr << (r ? ", " : "") << by_rank[r];
    std::cerr << "\n";
  }
  res::ReportInput input{spec, outcome.results, false, {}, outcome.samples};
  const res::MemorySeries series = record_series(scenario, spec, base, res::pick_plot_guard(input));
  allocsim::write_file_atomically((dir / "memory_series.json").string(), res::memory_series_json(series));
  std::cout << "results   " << (dir / "results.csv").string() << "\n"
            << "          " << (dir / "results.json").string() << "\n";
  if (spec.samples > 0) std::cout << "          " << (dir / "samples.csv").string() << "\n";
  if (a.no_report) return 0;
  res::ReportOptions ro;
  ro.plots = !a.no_plots;
  res::ReportOutcome report = res::write_report(dir, ro);
  std::cout << "report    " << (dir / "report.md").string() << "\n";
  for (const auto& p : report.plots) std::cout << "plot      " << (dir / p).string() << "\n";
  if (!report.plot_note.empty()) std::cerr << "report: " << report.plot_note << "\n";
  return 0;
}

allocsim::cli::RunFn setup_sweep(CLI::App& sub) {
  auto a = std::make_shared<SweepArgs>();
  sub.add_option("SCENARIO", a->scenario, "built-in name (allocsim list), YAML file, PyTorch snapshot JSON, or JAX profile (*.xplane.pb[.gz] or its directory)")
      ->required();
  sub.add_option("--policies", a->policies, "comma-separated free policies, or all (default all)");
  sub.add_option("--guards", a->guards, "comma-separated guards, or all (default all)");
  sub.add_option("--semaphore", a->semaphores, "comma-separated compute-semaphore capacities (default: the scenario's)");
  sub.add_option("--seeds", a->seeds, "number of seeds: the scenario's seed + 0..N-1 (default 1)")
      ->check(CLI::Range(1, 1000000));
  sub.add_option("--platform", a->platform, "platform profile JSON (from allocsim-hw calibrate) for every run");
  sub.add_option("--samples", a->samples,
                 "play each point (policy, guard, semaphore) N times, every cost drawn from the --platform "
                 "file's spread, instead of --seeds: per point the manifest-corruption probability with its 95% "
                 "interval (any execution and each), peak in-use and host blocking median/p95/max")
      ->check(CLI::Range(1, 10'000'000));
  sub.add_option("--out", a->out, "output folder (created; re-running into it resumes)")->required();
  sub.add_option("--jobs,-j", a->jobs, "parallel runs (with --samples: samples) per process (default: all cores; under mpirun, the cores each rank is bound to, docs/cluster.md); output is the same for any")->check(CLI::Range(1u, 4096u));
  sub.add_option("--shard", a->shard,
                 "INDEX/COUNT: run only the jobs (with --samples: samples) whose index is INDEX mod COUNT and record them in OUT, "
                 "for job arrays without MPI; then --merge");
  sub.add_flag("--merge", a->merge, "run nothing: write the results and report from the records the shards left in OUT (every one must be there)");
  sub.add_option("--set", a->sets, "override a numeric parameter, key=value (repeatable)");
  sub.add_flag("--force", a->force, "discard every run recorded in OUT (also needed when OUT holds a different sweep) and start over");
  sub.add_option("--progress", a->progress, "auto (bar on a terminal, lines otherwise), bar, lines or off");
  sub.add_flag("--no-report", a->no_report, "write results only, no report.md");
  sub.add_flag("--no-plots", a->no_plots, "report tables only, no gnuplot PNGs");
  sub.footer(
      "Examples:\n"
      "  allocsim sweep conv-autotune --policies all --guards all --semaphore 1,2,4,8,16,32 --seeds 3 --out out/ca\n"
      "  allocsim sweep seed-repro --policies immediate,deferred-callback --guards none,wait-compute --out out/sr -j 2\n"
      "  allocsim sweep conv-autotune --policies immediate,event-poll --guards none --semaphore 2,32 --samples 200 \\\n"
      "      --platform results/hw/h200-samples/calibration.json --out out/cs\n"
      "Output: OUT/results.csv, OUT/results.json, OUT/report.md (+ PNG plots); OUT/jobs/*.jsonl hold a record per\n"
      "finished run (with --samples: per sample) so an interrupted sweep resumes where it stopped. With --samples,\n"
      "results.csv has one row per sample and OUT/samples.csv one per point (corruption rates with intervals).\n"
      "On a cluster: mpirun -np N allocsim sweep ... (or srun) spreads the jobs over the ranks, same files;\n"
      "without MPI, run --shard 0/N .. N-1/N into one OUT, then --merge (README: Running on a cluster).\n"
      "Exit status: 0 ok, 2 bad input, 3 some jobs failed (each named; the rest are recorded: re-run to resume).");
  return [a]() -> int {
    try {
      return run(*a);
    } catch (const res::SweepJobsFailed& e) {
      if (res::JobFarm::get().is_collector()) std::cerr << "allocsim: error: " << e.what();
      return 3;
    } catch (const std::exception& e) {  // bad input: scenario, --set, spec, DIR, report
      if (res::JobFarm::get().is_collector()) std::cerr << "allocsim: error: " << e.what() << "\n";
      return 2;
    }
  };
}

}  // namespace

ALLOCSIM_COMMAND("sweep", "Run policies x guards x semaphore capacities x seeds; write results and the report",
                 setup_sweep, 30, true);
