// `allocsim explore SCENARIO`: every schedule within `--bound` delays of the timed run
// (docs/explore.md, results/include/allocsim/results/explore.h). Prints the counts and either
// "race-free and deadlock-free up to k (N schedules)" or the witness, and writes the witness to
// --witness FILE (a schedule `allocsim run --schedule` replays).
// Exit status: 0 race-free and deadlock-free up to the bound; 1 a witness was found, or the search
// stopped before the bound (--max-schedules); 2 bad input.
// Under mpirun every rank runs this command (farm = true below): rank 0 explores and writes, the
// other ranks play the schedules it hands out and print and write nothing (exit status 0).
#include <iostream>
#include <memory>

#include "allocsim/results/atomic_file.h"
#include "allocsim/results/explore.h"
#include "allocsim/results/job_farm.h"
#include "allocsim/results/resolve.h"
#include "allocsim/results/result_json.h"
#include "command.h"
#include "run_flags.h"

namespace {

struct ExploreArgs {
  allocsim::cli::RunFlags run;
  std::string witness_path, json_path;
  int bound = 2;
  bool no_prune = false;
  int jobs = 0;
  std::uint64_t max_schedules = 10'000'000;
  int execution = -1;
  bool forceable = false;
  std::string progress = "auto";
};

int explore(const ExploreArgs& a, const CLI::App& sub) {
  allocsim::results::JobFarm& farm = allocsim::results::JobFarm::get();
  farm.set_threads(unsigned(a.jobs));
  const allocsim::RunConfig config = a.run.config(sub);
  if (farm.is_collector()) {  // the output files are the collector's alone (a worker may run on another node)
    allocsim::check_output_path(a.witness_path, "--witness");
    allocsim::check_output_path(a.json_path, "--json");
  }
  const allocsim::Scenario scenario = allocsim::load_for_run(config);

  allocsim::ExploreOptions options;
  options.bound = a.bound;
  options.prune = !a.no_prune;
  options.max_schedules = a.max_schedules;
  options.execution = a.execution;
  options.forceable = a.forceable;
  using Meter = allocsim::results::ProgressMeter;
  const Meter::Style style = Meter::style_named(a.progress);
  // One meter per level: a level's size is known once the level before it has run.
  const allocsim::ExploreProgress progress = [style](int level, std::size_t total) {
    return std::make_unique<Meter>(total, 0, std::cerr, style, "explore, " + std::to_string(level) + " delays",
                                   "schedules");
  };
  const allocsim::ExploreReport r = allocsim::explore(scenario, config, options, progress, &farm);
  if (!r.collector) return 0;  // a worker rank: rank 0 reports

  std::cout << allocsim::format_explore(r, scenario.program);
  if (!a.json_path.empty()) {
    allocsim::write_file_atomically(a.json_path, allocsim::pretty_json(allocsim::explore_to_json(r, scenario.program)));
    std::cout << "json      " << a.json_path << "\n";
  }
  const allocsim::ExploredSchedule* w = r.witness();
  if (!a.witness_path.empty()) {
    if (w) {
      allocsim::write_file_atomically(
          a.witness_path, allocsim::write_schedule(allocsim::schedule_file_of(r, *w, a.run.scenario, a.run.typed_sets(), scenario.program)));
      std::cout << "witness   " << a.witness_path << " (replay: allocsim run --schedule " << a.witness_path << ")\n";
    } else {
      std::cout << "witness   none: " << a.witness_path << " not written\n";
    }
  }
  std::cout.flush();
  return w || !r.complete ? 1 : 0;
}

allocsim::cli::RunFn setup_explore(CLI::App& sub) {
  auto a = std::make_shared<ExploreArgs>();
  a->run.add_to(sub, "built-in name (allocsim list) or YAML file");
  sub.add_option("--bound", a->bound, "most delays per schedule (default 2)")->check(CLI::Range(0, 8));
  sub.add_flag("--no-prune", a->no_prune,
               "plain enumeration: also hold steps past steps they do not conflict with (for comparison; slow)");
  sub.add_option("--execution", a->execution,
                 "the witness must corrupt this execution (from 0, as run --samples numbers them)")
      ->check(CLI::Range(0, 1 << 30));
  sub.add_flag("--forceable", a->forceable,
               "a witness allocsim-hw validate --schedule can force: every hold ends at its until step, none of or until a callback");
  sub.add_option("--witness", a->witness_path, "write the witness schedule (JSON, docs/explore.md) to FILE");
  sub.add_option("--json", a->json_path, "write the exploration's counts and first schedule of each outcome to FILE");
  sub.add_option("--jobs", a->jobs,
                 "threads per process (default: every core; under mpirun, the cores each rank is bound to, "
                 "docs/cluster.md); output is the same for any number of threads or ranks")
      ->check(CLI::Range(1, 1024));
  sub.add_option("--max-schedules", a->max_schedules, "stop (verdict: incomplete) past this many schedules (default 10000000)")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 40));
  sub.add_option("--progress", a->progress, "on stderr: auto (bar on a terminal, lines otherwise), bar, lines or off")
      ->check(CLI::IsMember({"auto", "bar", "lines", "off"}));
  sub.footer(
      "A delay holds one step (a host op, a stream's device op, a host callback) until a step of another agent is\n"
      "done. Schedules are explored level by level (0 delays, 1, ...); a level with a deadlock or a manifest race\n"
      "ends the search with its first such schedule as the witness.\n"
      "Examples:\n"
      "  allocsim explore seed-repro --policy immediate --guard none --bound 2 --execution 2 --forceable --witness w.json\n"
      "  allocsim run seed-repro --schedule w.json --trace w.trace.json\n"
      "  allocsim explore conv-autotune --policy deferred-callback --guard none --bound 2\n"
      "  allocsim explore conv-autotune --policy stream-aware --guard none --bound 3   # 550,965 schedules\n"
      "  mpirun -np 8 allocsim explore conv-autotune --policy stream-aware --guard none --bound 3   # on 8 ranks\n"
      "Exit status: 0 race-free and deadlock-free up to the bound, 1 witness found or search incomplete, 2 bad input.");
  const CLI::App* subp = &sub;
  // Bad input (ScenarioError, RunInputError, FileWriteError) reaches main(), which prints it and
  // exits with status 2.
  return [a, subp]() -> int { return explore(*a, *subp); };
}

}  // namespace

ALLOCSIM_COMMAND("explore", "Explore every schedule within k delays of the timed run: prove race- and deadlock-freedom or find a witness",
                 setup_explore, 25, true);
