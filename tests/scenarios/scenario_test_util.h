// Helpers shared by the scenario tests: load from text, catch the error message, walk a Program.
#pragma once
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "allocsim/core/program.h"
#include "allocsim/scenarios/loader.h"

namespace allocsim::test {

inline Scenario load_text(const std::string& yaml, const Params& overrides = {}) {
  return load_scenario_yaml(yaml, "test.yaml", overrides);
}

/// The ScenarioError message loading `yaml` gives ("" if it loads).
inline std::string error_of(const std::string& yaml, const Params& overrides = {}, LoadLimits limits = {}) {
  try {
    load_scenario_yaml(yaml, "test.yaml", overrides, limits);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

/// Loading `yaml` fails with a message at test.yaml:WHERE ("LINE:COL") that contains `words`.
inline void expect_error(const std::string& yaml, const std::string& where, const std::string& words) {
  const std::string msg = error_of(yaml);
  INFO(msg);
  CHECK(msg.rfind("test.yaml:" + where + ": ", 0) == 0);
  CHECK(msg.find(words) != std::string::npos);
}

/// Peak of bytes held by the host (allocated, not yet released), walking the program in order;
/// preexisting buffers count from the start.
inline std::uint64_t peak_live_bytes(const Program& p) {
  std::uint64_t live = 0, peak = 0;
  std::vector<std::uint64_t> size(p.buffer_names.size(), 0);
  for (std::size_t i = 0; i < p.preexisting.size(); ++i) {
    size[static_cast<std::size_t>(p.preexisting[i])] = p.preexisting_bytes[i];
    live += p.preexisting_bytes[i];
  }
  peak = live;
  for (const auto& op : p.ops) {
    if (op.kind == HostOpKind::Alloc) {
      size[static_cast<std::size_t>(op.buffer)] = op.bytes;
      live += op.bytes;
      peak = std::max(peak, live);
    } else if (op.kind == HostOpKind::Release) {
      live -= size[static_cast<std::size_t>(op.buffer)];
    }
  }
  return peak;
}

inline std::size_t count_ops(const Program& p, HostOpKind kind) {
  std::size_t n = 0;
  for (const auto& op : p.ops) n += op.kind == kind;
  return n;
}

}  // namespace allocsim::test
