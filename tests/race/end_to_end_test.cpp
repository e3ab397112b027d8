// The detector behind simulate() (sim/engine) with the real policies and guards: the seed's
// autotuner use-after-free is a latent race and, with compute idle at the start (the fill runs at
// once, the zeroing lands during the long kernel), a manifest corruption; the fixes remove both.
#include <catch2/catch.hpp>

#include "allocsim/core/policy.h"
#include "allocsim/core/scenario.h"
#include "allocsim/engine/simulate.h"

using namespace allocsim;

namespace {

Scenario seed_scenario() {
  Scenario sc;
  sc.name = "race-seed";
  Program& p = sc.program;
  p.streams = {{"compute", true}, {"autotune", false}};
  p.buffer_names = {"x", "scratch"};
  auto op = [](HostOpKind k, StreamId s, double ns) {
    HostOp o;
    o.kind = k;
    o.stream = s;
    o.duration = Duration::fixed(ns);
    return o;
  };
  HostOp ax = op(HostOpKind::Alloc, 0, 0);
  ax.buffer = 0;
  ax.bytes = 4 << 20;
  p.ops.push_back(ax);
  HostOp fill = op(HostOpKind::Kernel, 0, 10'000);
  fill.writes = {{0}};
  p.ops.push_back(fill);
  p.ops.push_back(op(HostOpKind::Kernel, 0, 1'000'000));  // the long kernel
  HostOp copy = op(HostOpKind::Copy, 0, 10'000);
  copy.reads = {{0}};
  p.ops.push_back(copy);
  HostOp rx = op(HostOpKind::Release, kNoStream, 0);
  rx.buffer = 0;
  p.ops.push_back(rx);
  HostOp as = ax;
  as.stream = 1;
  as.buffer = 1;
  p.ops.push_back(as);
  HostOp zero = op(HostOpKind::Memset, 1, 1'000);
  zero.writes = {{1}};
  p.ops.push_back(zero);
  HostOp rs = rx;
  rs.buffer = 1;
  p.ops.push_back(rs);
  return sc;
}

RunResult run(const char* policy_name, const char* guard_name) {
  Params params;
  auto policy = make_policy(policy_name, params);
  auto guard = make_guard(guard_name, params);
  REQUIRE(policy);
  REQUIRE(guard);
  SimOptions o;
  o.max_findings = 100;
  return simulate(seed_scenario(), *policy, *guard, o);
}

}  // namespace

TEST_CASE("simulate: the seed under immediate/none is a latent race and a manifest corruption") {
  RunResult r = run("immediate", "none");
  REQUIRE(r.completed);
  CHECK(r.races_latent == 1);
  CHECK(r.races_manifest == 1);
  auto is_latent = [](const Finding& f) { return f.kind == FindingKind::Latent; };
  auto latent = std::find_if(r.findings.begin(), r.findings.end(), is_latent);
  REQUIRE(latent != r.findings.end());
  CHECK(latent->first.alloc == 0);
  CHECK(latent->second.alloc == 1);
  CHECK(latent->second.stream == "autotune");
  CHECK(latent->action_between.find("policy immediate") != std::string::npos);
}

TEST_CASE("simulate: the seed's fixes are race-free") {
  for (auto [p, g] : {std::pair{"immediate", "wait-compute"}, std::pair{"immediate", "device-sync"},
                      std::pair{"immediate", "private-pool"}, std::pair{"deferred-callback", "none"},
                      std::pair{"host-sync", "none"}, std::pair{"stream-aware", "none"}}) {
    RunResult r = run(p, g);
    INFO(p << " / " << g);
    REQUIRE(r.completed);
    CHECK(r.races_latent == 0);
    CHECK(r.races_manifest == 0);
  }
}

TEST_CASE("simulate: detection off reports no races") {
  Params params;
  auto policy = make_policy("immediate", params);
  auto guard = make_guard("none", params);
  SimOptions o;
  o.detect_races = false;
  RunResult r = simulate(seed_scenario(), *policy, *guard, o);
  CHECK(!r.race_detection);
  CHECK(r.races_latent == 0);
}
