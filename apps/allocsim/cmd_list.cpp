// `allocsim list`: the built-in scenarios, free policies and guards, one line each with a
// description, so a user can discover every name `allocsim run` accepts.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "allocsim/core/policy.h"
#include "command.h"
#include "scenario_access.h"

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

Entries entries_of(const std::vector<allocsim::RegistryEntry>& registry) {
  Entries out;
  for (const auto& e : registry) out.emplace_back(e.name, e.description);
  return out;
}

void print_section(const char* title, const Entries& entries) {
  std::size_t width = 0;
  for (const auto& [name, description] : entries) width = std::max(width, name.size());
  std::cout << title << ":\n";
  for (const auto& [name, description] : entries)
    std::cout << "  " << name << std::string(width - name.size() + 2, ' ') << description << "\n";
}

allocsim::cli::RunFn setup_list(CLI::App& sub) {
  sub.footer(
      "Examples:\n"
      "  allocsim list\n"
      "  allocsim run seed-repro --policy deferred-callback --guard wait-compute\n");
  return []() -> int {
    print_section("scenarios", allocsim::cli::builtin_scenarios());
    print_section("policies", entries_of(allocsim::list_policies()));
    print_section("guards", entries_of(allocsim::list_guards()));
    std::cout.flush();
    return std::cout ? 0 : 2;
  };
}

}  // namespace

ALLOCSIM_COMMAND("list", "List built-in scenarios, free policies and guards", setup_list, 10);
