// load_scenario(): decides what `name_or_path` is (built-in name, JAX/XLA profile, PyTorch snapshot,
// YAML file) and hands it to the right front end. list_scenarios() reads the built-ins' own name/description.
#include "allocsim/scenarios/loader.h"

#include <algorithm>
#include <filesystem>

#include "allocsim/scenarios/builtin.h"
#include "allocsim/scenarios/torch_trace.h"
#include "allocsim/scenarios/xla_program.h"
#include "file_text.h"

namespace allocsim {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string builtin_label(std::string_view name) { return "<builtin>/" + std::string(name) + ".yaml"; }

std::string builtin_names() {
  std::string out;
  for (const auto& b : builtin_scenario_sources()) out += (out.empty() ? "" : ", ") + std::string(b.name);
  return out;
}

}  // namespace

Scenario load_scenario(const std::string& name_or_path, const Params& overrides, const LoadLimits& limits) {
  for (const auto& b : builtin_scenario_sources())
    if (b.name == name_or_path) return load_scenario_yaml(std::string(b.yaml_text), builtin_label(b.name), overrides, limits);

  // A JAX/XLA profile (file or the directory jax.profiler wrote): replayed as a program.
  if (xla::looks_like_profile(name_or_path)) return xla::load_xla_profile(name_or_path, overrides, limits);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name_or_path, ec))
    throw ScenarioError(name_or_path, 0, 0, "no such built-in scenario or file (built-ins: " + builtin_names() + ")");
  if (ends_with(name_or_path, ".json") || ends_with(name_or_path, ".json.gz"))
    return load_torch_trace(name_or_path, overrides, limits);
  std::string text = scenario_detail::read_input_file(name_or_path, limits.max_input_bytes);
  auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{' && text.find("device_traces") != std::string::npos)
    return torch_trace_from_json(text, name_or_path, overrides, limits);
  return load_scenario_yaml(text, name_or_path, overrides, limits);
}

std::vector<RegistryEntry> list_scenarios() {
  std::vector<RegistryEntry> out;
  for (const auto& b : builtin_scenario_sources()) {
    Scenario s = load_scenario_yaml(std::string(b.yaml_text), builtin_label(b.name));
    out.push_back({std::string(b.name), s.description});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace allocsim
