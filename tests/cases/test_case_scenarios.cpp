// The case scenarios of scenarios/cases/ (docs/scenarios.md, "Case scenarios"): each loads, and
// what its header promises of the timed run holds. A timed run cannot force a schedule, so the
// deadlocks the fixed=0 variants model are checked on hand-written programs in
// tests/engine/test_mutexes.cpp; here fixed=0 and fixed=1 must both complete on their timing.
#include <catch2/catch.hpp>

#include <string>

#include "allocsim/results/runner.h"
#include "allocsim/scenarios/loader.h"

using namespace allocsim;

namespace {

std::string case_path(const std::string& name) {
  return std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/cases/" + name + ".yaml";
}

RunResult run_case(const std::string& name, const std::string& policy, Params sets = {}, int semaphore = 32) {
  RunConfig c;
  c.scenario = case_path(name);
  c.policy = policy;
  c.guard = "none";
  c.semaphore = semaphore;
  c.sets = sets;
  const Scenario s = load_scenario(c.scenario, sets);
  return run_one(s, c);
}

Params fixed(int v) {
  Params p;
  p.set("fixed", v);
  return p;
}

std::size_t count_kind(const Program& p, HostOpKind k) {
  std::size_t n = 0;
  for (const HostOp& op : p.ops) n += op.kind == k;
  return n;
}

}  // namespace

TEST_CASE("seed-979: immediate races, deferred-callback does not", "[cases]") {
  const RunResult imm = run_case("seed-979", "immediate", {}, 1);
  INFO(imm.error);
  REQUIRE(imm.completed);
  CHECK(imm.races_latent > 0);
  CHECK(imm.races_manifest > 0);  // at semaphore 1 the zeroing lands before the copy every trial
  for (int sem : {1, 32}) {
    const RunResult def = run_case("seed-979", "deferred-callback", {}, sem);
    INFO("semaphore " << sem << ": " << def.error);
    REQUIRE(def.completed);
    CHECK(def.races_latent == 0);
    CHECK(def.races_manifest == 0);
  }
}

TEST_CASE("mutex-callback-6318: both variants complete on the timed schedule, only fixed=0 holds mu across the wait",
          "[cases][mutex]") {
  for (int f : {0, 1}) {
    const Scenario s = load_scenario(case_path("mutex-callback-6318"), fixed(f));
    CHECK(count_kind(s.program, HostOpKind::HostCallback) == 1);
    CHECK(count_kind(s.program, HostOpKind::Lock) == 1);
    const std::string& locked = s.program.mutex_names[std::size_t(s.program.ops[4].mutexes.at(0))];
    CHECK(locked == (f == 0 ? "mu" : "callback_stream_map_mu"));
    for (const char* policy : {"immediate", "deferred-callback"}) {
      const RunResult r = run_case("mutex-callback-6318", policy, fixed(f));
      INFO("fixed=" << f << " " << policy << ": " << r.error);
      CHECK(r.completed);
      CHECK(r.races_latent == 0);
    }
  }
}

TEST_CASE("mutex-callback-6318 deadlocks when the host's wait is long enough to take mu first", "[cases][mutex]") {
  // Not a forced schedule (exploration's job), but the same program with the host's work shorter
  // than the callback's way to the callback thread: the cycle the header describes.
  Params p = fixed(0);
  p.set("host_work_ns", 0);
  p.set("kernel_ns", 1e6);
  const RunResult r = run_case("mutex-callback-6318", "immediate", p);
  CHECK_FALSE(r.completed);
  CHECK_THAT(r.error, Catch::StartsWith("deadlock: nothing can make progress"));
  CHECK_THAT(r.error, Catch::Contains("waiting for mutex 'mu' (held by the host), holding stream 'compute'"));
  p.set("fixed", 1);
  CHECK(run_case("mutex-callback-6318", "immediate", p).completed);
}

TEST_CASE("scratch-teardown-43489: both variants complete on the timed schedule - fixed=1 has no callback",
          "[cases][mutex]") {
  for (int f : {0, 1}) {
    const Scenario s = load_scenario(case_path("scratch-teardown-43489"), fixed(f));
    CHECK(count_kind(s.program, HostOpKind::HostCallback) == std::size_t(f == 0 ? 1 : 0));
    for (const char* policy : {"immediate", "deferred-callback"}) {
      const RunResult r = run_case("scratch-teardown-43489", policy, fixed(f));
      INFO("fixed=" << f << " " << policy << ": " << r.error);
      CHECK(r.completed);
      CHECK(r.races_latent == 0);
    }
  }
  // Teardown reaching the lock before the callback runs: the hang of the PR.
  Params p = fixed(0);
  p.set("test_tail_ns", 0);
  const RunResult r = run_case("scratch-teardown-43489", "immediate", p);
  CHECK_FALSE(r.completed);
  CHECK_THAT(r.error, Catch::Contains("host: waiting for all streams and the callback thread to go idle"));
  CHECK_THAT(r.error, Catch::Contains("waiting for mutex 'alloc_mu' (held by the host)"));
}

TEST_CASE("last-use-stream: deferred-callback misses the d2h use, policies ordering every use stream do not",
          "[cases]") {
  for (const char* racy : {"deferred-callback", "batched-callback"}) {
    const RunResult r = run_case("last-use-stream", racy);
    INFO(racy << ": " << r.error);
    REQUIRE(r.completed);
    CHECK(r.races_latent > 0);
    CHECK(r.races_manifest > 0);
  }
  // immediate: upstream's free holds a buffer used off compute until a callback after that stream
  for (const char* safe : {"immediate", "stream-aware", "host-sync", "event-poll", "timestamp-frontier"}) {
    const RunResult r = run_case("last-use-stream", safe);
    INFO(safe << ": " << r.error);
    REQUIRE(r.completed);
    CHECK(r.races_latent == 0);
    CHECK(r.races_manifest == 0);
  }
}
