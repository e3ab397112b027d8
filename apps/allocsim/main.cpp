// allocsim: the command-line front end. Subcommands live in cmd_*.cpp (see command.h).
#include <algorithm>
#include <exception>
#include <iostream>
#include <map>

#include "command.h"

namespace allocsim::cli {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}
}  // namespace allocsim::cli

int main(int argc, char** argv) {
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
  std::map<CLI::App*, RunFn> runners;
  for (auto& c : cmds) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    runners[sub] = c.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // bad command line = bad input
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (const std::exception& e) {
    std::cerr << "allocsim: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
