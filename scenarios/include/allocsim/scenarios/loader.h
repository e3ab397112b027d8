// Scenario loading: one entry point for built-in names, YAML files, PyTorch snapshot JSON and
// JAX/XLA profiles.
//
// The output is always a Scenario holding a flat Program (loops expanded; every allocation has its
// own BufferId), so the engine and the HIP backend never see the YAML. The format is documented in
// docs/scenarios.md; the built-ins live in scenarios/builtin/*.yaml and are compiled into the
// library (builtin_sources.cpp) so an installed binary needs no data files.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "allocsim/core/params.h"
#include "allocsim/core/policy.h"  // RegistryEntry (shared with the policy/guard registries)
#include "allocsim/core/scenario.h"
#include "allocsim/scenarios/scenario_error.h"

namespace allocsim {

/// Limits that keep hostile input from hanging or exhausting memory. The defaults fit every
/// realistic scenario; the fuzz targets use smaller ones.
struct LoadLimits {
  std::size_t max_ops = 20'000'000;         // expanded host ops (and loop iterations) per program
  std::size_t max_input_bytes = 1u << 30;   // file size / decompressed gzip size
};

/// Loads `name_or_path`: a built-in name (see list_scenarios()), a JAX/XLA profile (`.xplane.pb`,
/// `.xplane.pb.gz`, or the directory jax.profiler wrote; xla_program.h), a YAML scenario file, or
/// a PyTorch memory snapshot converted to JSON (`.json` / `.json.gz`, or any file whose content is
/// JSON or gzip). `overrides` are `--set key=value` pairs: a scenario's own `params:`, the well-known keys
/// (well_known_param_keys()) and the policy keys (policy_param_keys()); any other key is an error.
/// Throws ScenarioError ("FILE:LINE:COL: message") on any bad input.
Scenario load_scenario(const std::string& name_or_path, const Params& overrides = {},
                       const LoadLimits& limits = {});

/// Parses YAML text (`file_label` names it in messages). Used by load_scenario, tests and fuzzers.
Scenario load_scenario_yaml(const std::string& yaml_text, const std::string& file_label,
                            const Params& overrides = {}, const LoadLimits& limits = {});

/// The built-in scenarios, sorted by name (for `allocsim list`).
std::vector<RegistryEntry> list_scenarios();

/// `--set` keys every scenario accepts besides its own params: seed, semaphore, device and
/// platform fields (memory_limit, callback_latency_ns, launch_overhead_ns, ...).
const std::vector<std::string>& well_known_param_keys();

/// `--set` keys read by policies and guards, not by scenarios: the parameters they declare in their
/// registrations (declared_param_keys()), accepted by the loader and copied into Scenario::params.
const std::vector<std::string>& policy_param_keys();

}  // namespace allocsim
