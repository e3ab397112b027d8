// Subcommand registration: each cmd_*.cpp adds itself with ALLOCSIM_COMMAND, so adding a command
// never touches main.cpp. `setup` declares the subcommand's options on `app` and returns the
// function that runs it (exit status: 0 ok, 1 races with --fail-on-race, 2 bad input).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace allocsim::cli {

using RunFn = std::function<int()>;
struct Command {
  const char* name;
  const char* summary;
  std::function<RunFn(CLI::App& sub)> setup;
  int order;  // position in --help
  // Runs its jobs on the job farm (results/job_farm.h): under mpirun every rank runs it, rank 0
  // writing the output and the others serving jobs. Other commands run on rank 0 only.
  bool farm = false;
};

std::vector<Command>& commands();

struct Registrar {
  explicit Registrar(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace allocsim::cli

#define ALLOCSIM_COMMAND_CAT2(a, b) a##b
#define ALLOCSIM_COMMAND_CAT(a, b) ALLOCSIM_COMMAND_CAT2(a, b)
#define ALLOCSIM_COMMAND(...) \
  static ::allocsim::cli::Registrar ALLOCSIM_COMMAND_CAT(allocsim_cmd_, __LINE__)(::allocsim::cli::Command{__VA_ARGS__})
