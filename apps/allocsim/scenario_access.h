// The built-in scenarios as `allocsim list` shows them (core types only). Loading a scenario for a
// run is the resolver's (results/resolve.h).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace allocsim::cli {

/// Built-in scenarios as (name, one-line description), sorted by name.
std::vector<std::pair<std::string, std::string>> builtin_scenarios();

}  // namespace allocsim::cli
