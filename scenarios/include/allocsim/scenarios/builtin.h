// The built-in scenarios' YAML text, compiled into the library so an installed `allocsim` works
// without the source tree. The same text lives in scenarios/builtin/<name>.yaml (the readable copy,
// ALLOCSIM_SCENARIO_DIR); a test checks that both copies are identical.
#pragma once
#include <string_view>
#include <vector>

namespace allocsim {

struct BuiltinSource {
  std::string_view name;       // e.g. "seed-repro" (file: scenarios/builtin/seed-repro.yaml)
  std::string_view yaml_text;
};

const std::vector<BuiltinSource>& builtin_scenario_sources();

}  // namespace allocsim
