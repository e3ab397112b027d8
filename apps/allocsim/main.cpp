// allocsim: the command-line front end. Subcommands live in cmd_*.cpp (see command.h).
#include <algorithm>
#include <exception>
#include <iostream>
#include <map>

#include "allocsim/results/job_farm.h"
#include "command.h"

namespace allocsim::cli {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}
}  // namespace allocsim::cli

namespace {

/// Under mpirun, MPI is started before anything else and finalized on every way out of main();
/// rank 0 alone speaks (messages, --help), the other ranks serve the farm's jobs.
struct FarmSession {
  allocsim::results::JobFarm& farm;
  FarmSession() : farm((allocsim::results::enable_mpi_farm(), allocsim::results::JobFarm::get())) {}
  ~FarmSession() { allocsim::results::JobFarm::shutdown(); }
};

int run_main(int argc, char** argv, allocsim::results::JobFarm& farm);

}  // namespace

int main(int argc, char** argv) {
  try {
    FarmSession session;
    return run_main(argc, argv, session.farm);
  } catch (const std::exception& e) {  // MPI failed to start
    std::cerr << "allocsim: error: " << e.what() << "\n";
    return 2;
  }
}

namespace {

int run_main(int argc, char** argv, allocsim::results::JobFarm& farm) {
  using namespace allocsim::cli;
  CLI::App app{
      "allocsim: when is it safe to give device memory back to the allocator?\n"
      "Simulates free policies over an address-exact BFC pool and reports races, peak memory and host stall.\n"
      "Examples:\n"
      "  allocsim list\n"
      "  allocsim run seed-repro --policy immediate --guard none\n"
      "  allocsim sweep conv-autotune --policies all --guards all --semaphore 1,2,4 --seeds 3 --out out/\n"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "allocsim 0.1");
  auto cmds = commands();
  std::sort(cmds.begin(), cmds.end(), [](const Command& a, const Command& b) { return a.order < b.order; });
  std::map<CLI::App*, std::pair<RunFn, bool>> runners;  // the command, and whether it uses the farm
  for (auto& c : cmds) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    runners[sub] = {c.setup(*sub), c.farm};
  }
  const bool speaks = farm.is_collector();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (!speaks) return e.get_exit_code() == 0 ? 0 : 2;
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // bad command line = bad input
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run.second || speaks ? run.first() : 0;
  } catch (const std::exception& e) {
    if (speaks) std::cerr << "allocsim: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace
