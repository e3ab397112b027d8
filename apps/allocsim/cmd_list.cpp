// `allocsim list`: the built-in scenarios, free policies and guards, one line each with a
// description, and under each policy or guard the `--set` parameters it reads (key=default,
// meaning, accepted values), so a user can discover every name and key `allocsim run` accepts.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "allocsim/core/policy.h"
#include "command.h"
#include "scenario_access.h"

namespace {

struct Line {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> params;  // ("key=default", "meaning (range)")
};

std::vector<Line> lines_of(const std::vector<allocsim::RegistryEntry>& registry) {
  std::vector<Line> out;
  for (const auto& e : registry) {
    Line line{e.name, e.description, {}};
    for (const allocsim::ParamSpec& p : e.params) {
      line.params.emplace_back(std::string(p.key) + "=" + p.default_text(),
                               std::string(p.description) + " (" + p.range_text() + ")");
    }
    out.push_back(std::move(line));
  }
  return out;
}

void print_section(const char* title, const std::vector<Line>& lines) {
  std::size_t width = 0, param_width = 0;
  for (const Line& l : lines) {
    width = std::max(width, l.name.size());
    for (const auto& [text, meaning] : l.params) param_width = std::max(param_width, text.size());
  }
  const std::string indent(2 + width + 2, ' ');  // parameters sit under their entry's description
  std::cout << title << ":\n";
  for (const Line& l : lines) {
    std::cout << "  " << l.name << std::string(width - l.name.size() + 2, ' ') << l.description << "\n";
    for (const auto& [text, meaning] : l.params)
      std::cout << indent << text << std::string(param_width - text.size() + 2, ' ') << meaning << "\n";
  }
}

allocsim::cli::RunFn setup_list(CLI::App& sub) {
  sub.footer(
      "Indented under a policy or guard: the parameters it reads, as KEY=DEFAULT (set with --set KEY=VALUE).\n"
      "Examples:\n"
      "  allocsim list\n"
      "  allocsim run seed-repro --policy deferred-callback --guard wait-compute\n"
      "  allocsim run training-churn --policy batched-callback --set batch_size=8\n");
  return []() -> int {
    std::vector<Line> scenarios;
    for (const auto& [name, description] : allocsim::cli::builtin_scenarios()) scenarios.push_back({name, description, {}});
    print_section("scenarios", scenarios);
    print_section("policies", lines_of(allocsim::list_policies()));
    print_section("guards", lines_of(allocsim::list_guards()));
    std::cout.flush();
    return std::cout ? 0 : 2;
  };
}

}  // namespace

ALLOCSIM_COMMAND("list", "List built-in scenarios, free policies and guards", setup_list, 10);
