// `--set key=value`: scenario params, well-known keys, policy keys; anything else is an error.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "scenario_test_util.h"

using namespace allocsim;
using allocsim::test::count_ops;

namespace {
std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Params set(std::initializer_list<std::pair<const char*, double>> kv) {
  Params p;
  for (auto& [k, v] : kv) p.set(k, v);
  return p;
}
}  // namespace

TEST_CASE("set override: overrides a scenario param before the program is expanded") {
  Scenario s = load_scenario("seed-repro", set({{"trials", 5}, {"spin_ns", 2e6}}));
  CHECK(count_ops(s.program, HostOpKind::BeginExecution) == 5);
  bool saw_spin = false;
  for (const auto& op : s.program.ops) saw_spin |= op.kind == HostOpKind::Kernel && op.duration.a == 2e6;
  CHECK(saw_spin);
  CHECK(s.params.get("trials", 0) == 5);
}

TEST_CASE("set override: well-known keys change the scenario's fields") {
  Scenario s = load_scenario("seed-repro", set({{"semaphore", 1}, {"seed", 9}, {"memory_limit", 8 << 20},
                                                {"callback_latency_ns", 50000}, {"launch_overhead_ns", 1000}}));
  CHECK(s.semaphore == 1);
  CHECK(s.seed == 9);
  CHECK(s.device.memory_limit == 8u << 20);
  CHECK(s.platform.callback_latency_ns == 50000);
  CHECK(s.platform.launch_overhead_ns == 1000);
}

TEST_CASE("set override: policy keys are accepted and recorded") {
  Scenario s = load_scenario("conv-autotune", set({{"batch_size", 8}, {"callback_enqueue_failure", 0.1}}));
  CHECK(s.params.get("batch_size", 0) == 8);
  CHECK(s.params.get("callback_enqueue_failure", 0) == 0.1);
}

TEST_CASE("set override: of an unknown key is an error that lists the accepted keys") {
  try {
    load_scenario("seed-repro", set({{"trails", 3}}));
    FAIL("no error");
  } catch (const ScenarioError& e) {
    std::string m = e.what();
    CHECK(m.rfind("--set:0:0: --set trails: unknown parameter", 0) == 0);
    CHECK(m.find("trials") != std::string::npos);
    CHECK(m.find("oom_retry_timeout_ns") != std::string::npos);
  }
}

TEST_CASE("set override: values out of range are errors") {
  CHECK_THROWS_AS(load_scenario("seed-repro", set({{"semaphore", 0}})), ScenarioError);
  CHECK_THROWS_AS(load_scenario("seed-repro", set({{"memory_limit", -1}})), ScenarioError);
  CHECK_THROWS_AS(load_scenario("seed-repro", set({{"trials", -1}})), ScenarioError);
  CHECK_THROWS_AS(load_scenario("seed-repro", set({{"x_bytes", 1e16}})), ScenarioError);
  CHECK_THROWS_WITH(load_scenario("seed-repro", set({{"callback_latency_ns", -1}})),
                    Catch::Contains("negative duration: 'callback_latency_ns'"));
  CHECK_THROWS_WITH(load_scenario("seed-repro", set({{"spin_ns_per_cycle", 0}})), Catch::Contains("positive number"));
}

TEST_CASE("the exported key lists hold what the CLI must accept") {
  auto has = [](const std::vector<std::string>& v, const char* k) { return std::find(v.begin(), v.end(), k) != v.end(); };
  CHECK(has(policy_param_keys(), "callback_enqueue_failure"));
  CHECK(has(policy_param_keys(), "batch_size"));
  CHECK(has(policy_param_keys(), "oom_retry_timeout_ns"));
  CHECK(has(well_known_param_keys(), "semaphore"));
  CHECK(has(well_known_param_keys(), "callback_latency_ns"));
}

TEST_CASE("every platform field is a --set key, a YAML platform key, and documented") {
  const std::string doc = read_text(std::string(ALLOCSIM_SOURCE_DIR) + "/docs/scenarios.md");
  for (const PlatformField& f : kPlatformFields) {
    INFO(f.name);
    CHECK(std::find(well_known_param_keys().begin(), well_known_param_keys().end(), f.name) !=
          well_known_param_keys().end());
    // a value unlike the default reaches the field through --set and through `platform:`
    const double v = is_platform_switch(f) ? 1 : f.ns ? 123457 : 0.25;  // the switch: 0 or 1
    CHECK(platform_value(load_scenario("seed-repro", set({{f.name, v}})).platform, f) == v);
    const Scenario y = allocsim::test::load_text(std::string("platform: {") + f.name + ": " + std::to_string(v) +
                                                 "}\nprogram: []\n");
    CHECK(platform_value(y.platform, f) == v);
    // docs/scenarios.md lists it among the well-known keys and in the `platform:` example
    CHECK(doc.find(std::string("`") + f.name + "`") != std::string::npos);
    CHECK(doc.find(std::string("  ") + f.name + ": ") != std::string::npos);
  }
}
