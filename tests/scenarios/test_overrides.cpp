// `--set key=value`: scenario params, well-known keys, policy keys; anything else is an error.
#include <catch2/catch.hpp>

#include "scenario_test_util.h"

using namespace allocsim;
using allocsim::test::count_ops;

namespace {
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
}

TEST_CASE("the exported key lists hold what the CLI must accept") {
  auto has = [](const std::vector<std::string>& v, const char* k) { return std::find(v.begin(), v.end(), k) != v.end(); };
  CHECK(has(policy_param_keys(), "callback_enqueue_failure"));
  CHECK(has(policy_param_keys(), "batch_size"));
  CHECK(has(policy_param_keys(), "oom_retry_timeout_ns"));
  CHECK(has(well_known_param_keys(), "semaphore"));
  CHECK(has(well_known_param_keys(), "callback_latency_ns"));
}
