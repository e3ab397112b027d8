// Adding a policy or guard takes one file. This test program registers a test-only policy and
// guard in this file, exactly as a file under policies/src/ does, and then finds them everywhere
// a built-in is found: the registry (in its order-key position, although this file is linked
// first), construction with checked parameters, the scenario loader's `--set` keys, and a run.
// It is a program of its own so the other tests keep seeing exactly the built-ins.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>

#include "allocsim/policies/registration.h"
#include "allocsim/results/runner.h"
#include "allocsim/scenarios/loader.h"

using namespace allocsim;

namespace {

constexpr ParamSpec kDelay{
    .key = "test_added_delay_ns",
    .default_value = 5,
    .min = 0,
    .max = 100,
    .whole = true,
    .description = "test only: a parameter only the test-only policy reads",
};

class AddedPolicy final : public FreePolicy {
 public:
  static constexpr std::string_view kName = "test-added";
  std::string_view name() const override { return kName; }
  explicit AddedPolicy(const Params& params) : delay_ns(kDelay.read(params)) {}
  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    plan.push_back(Step::run([buf](Backend& b, Plan&) { b.pool_free(buf.chunk, buf.id); }));
  }
  double delay_ns;
};

ALLOCSIM_REGISTER_POLICY(AddedPolicy, {
    .order = 15,  // between immediate (10) and deferred-callback (20)
    .description = "test only: frees at once",
    .params = {kDelay},
});

class AddedGuard final : public Guard {
 public:
  static constexpr std::string_view kName = "test-added-guard";
  std::string_view name() const override { return kName; }
};

ALLOCSIM_REGISTER_GUARD(AddedGuard, {
    .order = 1000,
    .description = "test only: does nothing",
});

std::vector<std::string> names_of(const std::vector<RegistryEntry>& entries) {
  std::vector<std::string> names;
  for (const RegistryEntry& e : entries) names.push_back(e.name);
  return names;
}

}  // namespace

TEST_CASE("an added policy takes its order key's place in the list", "[registry]") {
  CHECK(names_of(list_policies()) == std::vector<std::string>{"immediate", "test-added", "deferred-callback",
                                                              "host-sync", "event-poll", "stream-aware",
                                                              "batched-callback", "timestamp-frontier"});
  CHECK(names_of(list_guards()) ==
        std::vector<std::string>{"none", "wait-compute", "device-sync", "private-pool", "test-added-guard"});
  CHECK(list_policies()[1].params.size() == 1);
  CHECK(list_policies()[1].params[0].key == "test_added_delay_ns");
}

TEST_CASE("an added policy is built with its declared parameters checked", "[registry]") {
  auto unset = make_policy("test-added", Params{});
  REQUIRE(unset);
  CHECK(dynamic_cast<AddedPolicy&>(*unset).delay_ns == 5);
  Params p;
  p.set("test_added_delay_ns", 7);
  CHECK(dynamic_cast<AddedPolicy&>(*make_policy("test-added", p)).delay_ns == 7);
  p.set("test_added_delay_ns", 500);
  CHECK_THROWS_WITH(make_policy("test-added", p),
                    "policy test-added: test_added_delay_ns=500: expected a whole number between 0 and 100");
  CHECK(make_guard("test-added-guard", Params{}));
}

TEST_CASE("an added policy's keys are accepted by --set", "[registry]") {
  const auto& keys = policy_param_keys();
  CHECK(std::find(keys.begin(), keys.end(), "test_added_delay_ns") != keys.end());
  Params sets;
  sets.set("test_added_delay_ns", 9);
  Scenario s = load_scenario("seed-repro", sets);
  CHECK(s.params.get("test_added_delay_ns", 0) == 9);
}

TEST_CASE("an added policy and guard run a scenario", "[registry]") {
  Scenario s = load_scenario("seed-repro");
  RunConfig config;
  config.policy = "test-added";
  config.guard = "test-added-guard";
  const RunResult r = run_one(s, config);
  CHECK(r.policy == "test-added");
  CHECK(r.guard == "test-added-guard");
}
