// `allocsim run SCENARIO`: one scenario under one policy and guard; prints a short summary and
// optionally writes the result JSON (docs/design.md section 6) and a Perfetto timeline.
// Exit status: 0 ok; 1 only with --fail-on-race when a latent or manifest race was found or the run
// did not complete; 2 bad input (unknown scenario/policy/guard, bad --set, unreadable or
// unwritable files). Output paths are checked before the run, so a long run never ends in
// "cannot write"; files are written whole or not at all.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "allocsim/results/atomic_file.h"
#include "allocsim/results/job_farm.h"
#include "allocsim/results/pace_scan.h"
#include "allocsim/results/perfetto_writer.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/result_json.h"
#include "allocsim/results/run_summary.h"
#include "allocsim/results/resolve.h"
#include "allocsim/results/runner.h"
#include "allocsim/results/samples.h"
#include "allocsim/results/schedule_run.h"
#include "allocsim/results/explore.h"
#include "command.h"
#include "run_flags.h"

namespace {

struct RunArgs {
  allocsim::cli::RunFlags run;
  std::string json_path, trace_path;
  bool no_races = false;
  bool fail_on_race = false;
  std::size_t findings = 3;
  int samples = 0;  // > 0: Monte Carlo over the platform's spread (results/samples.h)
  int jobs = 0;     // 0: every core
  std::vector<double> host_paces;  // --host-pace: the samples again at each factor (results/pace_scan.h)
  std::string progress = "auto";
  std::string schedule_path;  // a schedule file to replay (docs/explore.md)
};

/// `--samples N`: N runs under the platform file's spread; prints the per-execution probabilities.
int run_sampled(const RunArgs& a, const allocsim::RunConfig& config, const allocsim::Scenario& scenario) {
  if (!a.trace_path.empty()) throw allocsim::RunInputError("--trace records one run: leave out --samples");
  const allocsim::PlatformSpread spread = allocsim::spread_for_samples(a.run.platform_path);
  allocsim::results::JobFarm& farm = allocsim::results::JobFarm::get();
  if (a.jobs > 0) farm.set_threads(unsigned(a.jobs));
  using Meter = allocsim::results::ProgressMeter;
  const Meter::Style style = farm.is_collector() ? Meter::style_named(a.progress) : Meter::Style::Off;
  Meter meter(std::size_t(a.samples) * (1 + a.host_paces.size()), 0, std::cerr, style, "samples", "samples");
  std::optional<allocsim::SampleSet> set;
  std::vector<allocsim::PacePoint> scan;
  if (a.host_paces.empty()) {
    set = allocsim::run_samples(scenario, config, spread, a.samples, farm, &meter);
  } else if (auto paced = allocsim::run_paced_samples(scenario, config, spread, a.samples, a.host_paces, farm, &meter)) {
    set = std::move(paced->base);
    scan = std::move(paced->points);
  }
  if (!set) return 0;  // a worker rank: it served the collector's samples
  const allocsim::SampleSet& s = *set;
  meter.finish();
  std::cout << allocsim::format_samples(s) << allocsim::format_pace_scan(scan);
  if (!a.json_path.empty()) {
    boost::json::object o = allocsim::samples_to_json(s);
    if (!scan.empty()) o["host_pace_scan"] = allocsim::pace_scan_to_json(scan);
    allocsim::write_file_atomically(a.json_path, allocsim::pretty_json(o));
    std::cout << "json      " << a.json_path << "\n";
  }
  std::cout.flush();
  const allocsim::SampleSummary m = allocsim::summarize(s);
  if (a.fail_on_race && (m.samples_with_manifest > 0 || m.incomplete > 0 || m.latent.max > 0)) return 1;
  return 0;
}

int run(const RunArgs& a, const CLI::App& sub) {
  allocsim::RunConfig config = a.run.config(sub);
  config.detect_races = !a.no_races;
  config.max_findings = std::max<std::size_t>(20, a.findings);
  allocsim::check_output_path(a.json_path, "--json");
  allocsim::check_output_path(a.trace_path, "--trace");
  std::optional<allocsim::Schedule> schedule;
  if (!a.schedule_path.empty()) {
    if (a.samples > 0) throw allocsim::RunInputError("--schedule replays one schedule: leave out --samples");
    schedule = allocsim::apply_schedule(a.schedule_path, config);
  }

  if (!a.host_paces.empty()) {
    if (a.samples == 0) throw allocsim::RunInputError("--host-pace scales the samples' host costs: it needs --samples N");
    allocsim::check_pace_factors(a.host_paces);
  }
  const allocsim::Scenario scenario = allocsim::load_for_run(config);
  if (a.samples > 0) return run_sampled(a, config, scenario);
  // One run is rank 0's alone; under mpirun the other ranks have nothing to serve.
  if (!allocsim::results::JobFarm::get().is_collector()) return 0;
  std::vector<allocsim::StepHold> holds;
  if (schedule) {
    try {
      allocsim::check_schedule_streams(*schedule, scenario.program, a.schedule_path);
    } catch (const allocsim::ScheduleError& e) {
      throw allocsim::RunInputError(e.what());
    }
    holds = allocsim::holds_of(*schedule, scenario.program);
  }
  std::unique_ptr<allocsim::PerfettoWriter> trace;
  std::vector<allocsim::Observer*> observers;
  if (!a.trace_path.empty()) {
    trace = std::make_unique<allocsim::PerfettoWriter>(&scenario.program, scenario.name);
    observers.push_back(trace.get());
  }
  std::vector<allocsim::HoldOutcome> held;
  const allocsim::RunResult r = allocsim::run_one(scenario, config, observers, [&](allocsim::SimOptions& o) {
    o.holds = holds;
    o.hold_outcomes = &held;
  });

  std::cout << allocsim::format_run_summary(r, &scenario.program, a.findings);
  if (schedule) std::cout << allocsim::format_holds(holds, held, scenario.program);
  if (!a.json_path.empty()) {
    allocsim::write_file_atomically(a.json_path, allocsim::pretty_json(allocsim::result_to_json(r, &scenario.program)));
    std::cout << "json      " << a.json_path << "\n";
  }
  if (trace) {
    trace->write(a.trace_path);
    std::cout << "trace     " << a.trace_path << " (open in https://ui.perfetto.dev)\n";
  }
  std::cout.flush();
  if (a.fail_on_race && (r.races_latent + r.races_manifest > 0 || !r.completed)) return 1;
  return 0;
}

allocsim::cli::RunFn setup_run(CLI::App& sub) {
  auto a = std::make_shared<RunArgs>();
  a->run.add_to(sub, "built-in name (allocsim list), YAML file, PyTorch snapshot JSON, or JAX profile "
                    "(*.xplane.pb[.gz] or its directory)");
  sub.add_option("--json", a->json_path, "write the result object (docs/design.md section 6) to FILE");
  sub.add_option("--trace", a->trace_path, "write a Perfetto / Chrome trace JSON timeline to FILE");
  sub.add_option("--schedule", a->schedule_path,
                 "replay a schedule file (allocsim explore --witness): its run with its delays; flags may only repeat its values");
  sub.add_flag("--no-races", a->no_races, "turn the race detector off (faster; races are not counted)");
  sub.add_flag("--fail-on-race", a->fail_on_race, "exit 1 if a latent or manifest race is found or the run stalls");
  sub.add_option("--findings", a->findings, "how many finding records to print (default 3)");
  sub.add_option("--samples", a->samples,
                 "play the program N times, each cost drawn from the --platform file's spread: per-execution "
                 "corruption probabilities with intervals, peak and blocking distributions")
      ->check(CLI::Range(1, 10'000'000));
  sub.add_option("--jobs", a->jobs, "threads for --samples per process (default: every core; under mpirun, the cores each rank is bound to, docs/cluster.md); output is the same for any")
      ->check(CLI::Range(1, 1024));
  sub.add_option("--host-pace", a->host_paces,
                 "with --samples, play the samples again with every host cost times each factor, e.g. 0.8,0.9,1.1,1.25: "
                 "which executions a slower or faster host than the calibrating one would decide, and the peak in-use at each (results/pace_scan.h)")
      ->delimiter(',');
  sub.add_option("--progress", a->progress, "with --samples, on stderr: auto (bar on a terminal, lines otherwise), bar, lines or off")
      ->check(CLI::IsMember({"auto", "bar", "lines", "off"}));
  sub.footer(
      "Examples:\n"
      "  allocsim run seed-repro\n"
      "  allocsim run seed-repro --policy deferred-callback --guard wait-compute --fail-on-race\n"
      "  allocsim run conv-autotune --semaphore 1 --seed 7 --json out/run.json --trace out/run.trace.json\n"
      "  allocsim run training-churn --policy event-poll --set callback_latency_ns=50000 --no-races\n"
      "  allocsim run my-scenario.yaml --platform h200-calibrated.json\n"
      "  allocsim run conv-autotune --samples 1000 --platform results/hw/h200-afterop/calibration.json\n"
      "  allocsim run seed-repro --samples 1000 --platform results/hw/h200-wake-2/calibration.json --host-pace 0.8,0.9,1.1,1.25\n"
      "  allocsim run seed-repro --schedule witness.json --trace witness.trace.json\n"
      "With --samples under mpirun (or srun) every rank runs samples; rank 0 prints and writes.\n"
      "Exit status: 0 ok, 1 races found (only with --fail-on-race), 2 bad input.");
  const CLI::App* subp = &sub;
  // Bad input (ScenarioError, RunInputError, FileWriteError) reaches main(), which prints it and
  // exits with status 2.
  return [a, subp]() -> int { return run(*a, *subp); };
}

}  // namespace

ALLOCSIM_COMMAND("run", "Run one scenario under one free policy and guard", setup_run, 20, true);
