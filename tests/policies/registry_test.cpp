// The name registry: names and order are a contract (docs/design.md section 4), every entry constructs
// an object reporting the same name, unknown names give nullptr.
#include <catch2/catch.hpp>

#include "allocsim/core/policy.h"

using namespace allocsim;

TEST_CASE("registry lists the policies in contract order", "[registry]") {
  std::vector<std::string> names;
  for (const RegistryEntry& e : list_policies()) {
    names.push_back(e.name);
    CHECK_FALSE(e.description.empty());
    CHECK(e.description.find('\n') == std::string::npos);
  }
  CHECK(names == std::vector<std::string>{"immediate", "deferred-callback", "host-sync", "event-poll", "stream-aware",
                                          "batched-callback", "timestamp-frontier"});
}

TEST_CASE("registry lists the guards in contract order", "[registry]") {
  std::vector<std::string> names;
  for (const RegistryEntry& e : list_guards()) {
    names.push_back(e.name);
    CHECK_FALSE(e.description.empty());
  }
  CHECK(names == std::vector<std::string>{"none", "wait-compute", "device-sync", "private-pool"});
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
