// The registry: names and order are a contract (docs/design.md section 4), every entry constructs
// an object reporting the same name, unknown names give nullptr, and a policy's declared
// parameters give its defaults and reject bad values with a message naming the policy and key.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "allocsim/core/policy.h"

using namespace allocsim;

namespace {

std::vector<std::string> names_of(const std::vector<RegistryEntry>& entries) {
  std::vector<std::string> names;
  for (const RegistryEntry& e : entries) names.push_back(e.name);
  return names;
}

ParamSpec declared(std::string_view policy, std::string_view key) {
  for (const RegistryEntry& e : list_policies())
    if (e.name == policy)
      for (const ParamSpec& p : e.params)
        if (p.key == key) return p;
  throw std::runtime_error("policy " + std::string(policy) + " does not declare " + std::string(key));
}

/// The std::invalid_argument message make_policy gives ("" if it builds the policy).
std::string policy_error(std::string_view name, const std::string& key, double value) {
  Params params;
  params.set(key, value);
  try {
    if (!make_policy(name, params)) return "unknown policy";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// The order is what `allocsim list` and `--policies all` use, hence the flagship report's rows; it
// comes from each registration's order key, not from the order the linker put the files in.
TEST_CASE("registry lists the policies in contract order", "[registry]") {
  CHECK(names_of(list_policies()) == std::vector<std::string>{"immediate", "deferred-callback", "host-sync",
                                                              "event-poll", "stream-aware", "batched-callback",
                                                              "timestamp-frontier"});
}

TEST_CASE("registry lists the guards in contract order", "[registry]") {
  CHECK(names_of(list_guards()) == std::vector<std::string>{"none", "wait-compute", "device-sync", "private-pool"});
}

TEST_CASE("every entry and declared parameter has a one-line description", "[registry]") {
  auto all = list_policies();
  for (const RegistryEntry& g : list_guards()) all.push_back(g);
  for (const RegistryEntry& e : all) {
    INFO(e.name);
    CHECK_FALSE(e.description.empty());
    CHECK(e.description.find('\n') == std::string::npos);
    for (const ParamSpec& p : e.params) {
      INFO(p.key);
      CHECK_FALSE(p.description.empty());
      CHECK(p.description.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("every registered name constructs an object of that name", "[registry]") {
  Params params;
  for (const RegistryEntry& e : list_policies()) {
    auto p = make_policy(e.name, params);
    REQUIRE(p);
    CHECK(p->name() == e.name);
  }
  for (const RegistryEntry& e : list_guards()) {
    auto g = make_guard(e.name, params);
    REQUIRE(g);
    CHECK(g->name() == e.name);
  }
}

TEST_CASE("unknown names give nullptr", "[registry]") {
  Params params;
  CHECK(make_policy("immediately", params) == nullptr);
  CHECK(make_policy("", params) == nullptr);
  CHECK(make_guard("wait_compute", params) == nullptr);
}

TEST_CASE("declared parameters: unset keys read as the default, set ones as their value", "[registry][params]") {
  const ParamSpec batch = declared("batched-callback", "batch_size");
  CHECK(batch.read(Params{}) == batch.default_value);
  Params p;
  p.set("batch_size", 3);
  CHECK(batch.read(p) == 3);
  CHECK(declared("immediate", "oom_retry_timeout_ns").default_text() == "10000000000");
}

TEST_CASE("declared parameters: a bad value is an error naming the policy, key and accepted range",
          "[registry][params]") {
  CHECK(policy_error("batched-callback", "batch_size", -1) ==
        "policy batched-callback: batch_size=-1: expected a whole number between 0 and 1000000000");
  CHECK(policy_error("batched-callback", "batch_size", 2.5) ==
        "policy batched-callback: batch_size=2.5: expected a whole number between 0 and 1000000000");
  CHECK(policy_error("batched-callback", "batch_size", 1e30) ==
        "policy batched-callback: batch_size=1e+30: expected a whole number between 0 and 1000000000");
  CHECK(policy_error("deferred-callback", "callback_enqueue_failure", 1.5) ==
        "policy deferred-callback: callback_enqueue_failure=1.5: expected a number between 0 and 1");
  CHECK(policy_error("deferred-callback", "callback_enqueue_failure", std::nan("")).find("expected a number") !=
        std::string::npos);
  // Read only in the OOM path, mid-run, yet reported when the policy is built.
  CHECK(policy_error("immediate", "oom_retry_timeout_ns", -1) ==
        "policy immediate: oom_retry_timeout_ns=-1: expected a whole number between 0 and 1e+15");
  // Only the policy's own declared keys are its to check.
  CHECK(policy_error("event-poll", "batch_size", -1).empty());
  CHECK(policy_error("batched-callback", "batch_size", 1e9).empty());
}

// The scenario loader's policy keys (policy_param_keys()) are these: the union of the
// registrations, each key once although several policies declare it.
TEST_CASE("declared_param_keys: every declared key, once, in list order", "[registry][params]") {
  CHECK(declared_param_keys() ==
        std::vector<std::string>{"oom_retry_timeout_ns", "callback_enqueue_failure", "batch_size"});
}
