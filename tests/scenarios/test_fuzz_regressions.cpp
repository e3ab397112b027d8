// Inputs that crashed the loaders under libFuzzer, kept as regression tests. Each must now give a
// ScenarioError (or load), never any other exception, crash or hang. The raw crasher files are in
// tests/scenarios/fuzz_crashers/ (yaml-* for the YAML loader, torch-* for the snapshot importer).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "allocsim/scenarios/torch_trace.h"
#include "scenario_test_util.h"

using namespace allocsim;
using allocsim::test::error_of;

TEST_CASE("fuzz: a repeat nested in a repeat without a body used to abort (yaml-cpp InvalidNode)") {
  // minimised from fuzz_crashers/yaml-nested-repeat-without-body.yaml: estimating the outer loop
  // looked at the inner loop's missing body
  std::string msg = error_of("program:\n  - repeat: 1\n    body:\n      - repeat: 2\n");
  INFO(msg);
  CHECK(msg.rfind("test.yaml:4:9: repeat needs a 'body'", 0) == 0);
}

TEST_CASE("fuzz: every committed crasher now loads or fails with ScenarioError") {
  const std::filesystem::path dir = std::filesystem::path(ALLOCSIM_SOURCE_DIR) / "tests/scenarios/fuzz_crashers";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream f(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string name = entry.path().filename().string();
    INFO(name);
    LoadLimits limits;
    limits.max_ops = 100'000;  // as in the fuzz targets
    try {
      if (name.rfind("torch-", 0) == 0) torch_trace_from_json(ss.str(), name, {}, limits);
      else load_scenario_yaml(ss.str(), name, {}, limits);
    } catch (const ScenarioError&) {
    }
    ++files;
  }
  CHECK(files >= 1);
}
