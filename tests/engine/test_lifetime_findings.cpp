// Lifetime findings have one owner, the engine (engine/lifetime_findings.h): each is counted once,
// with one record, whether or not the race detector, which sees some of the same events, runs.
#include <algorithm>

#include <catch2/catch.hpp>

#include "engine/lifetime_findings.h"
#include "engine_test_support.h"

using namespace allocsim;
using namespace allocsim::test;

namespace {

/// Releases never reach the pool: every released buffer is still outstanding at the end.
class NeverFreePolicy final : public FreePolicy {
 public:
  std::string_view name() const override { return "test-never-free"; }
  void on_release(Backend&, const BufferInfo&, Plan&) override {}
};

/// Frees every released chunk twice (a policy bug): the second is a double free at the pool.
class TwiceFreePolicy final : public FreePolicy {
 public:
  std::string_view name() const override { return "test-twice-free"; }
  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    const Chunk c = buf.chunk;
    const BufferId id = buf.id;
    for (int i = 0; i < 2; ++i) plan.push_back(Step::run([c, id](Backend& b, Plan&) { b.pool_free(c, id); }));
  }
};

std::size_t records(const RunResult& r, FindingKind k) {
  auto of_kind = [&](const Finding& f) { return f.kind == k; };
  return std::size_t(std::count_if(r.findings.begin(), r.findings.end(), of_kind));
}

/// The lifetime counts other than `k` are all 0.
bool only(const RunResult& r, FindingKind k) {
  for (const FindingKindNames& n : kFindingKindNames)
    if (is_lifetime(n.kind) && n.kind != k && r.count(n.kind) != 0) return false;
  return true;
}

SimOptions options(bool detect_races) {
  SimOptions o = quiet_options();
  o.detect_races = detect_races;
  return o;
}

}  // namespace

TEST_CASE("each lifetime finding is counted once, with one record, with and without the race detector",
          "[engine]") {
  const bool detect = GENERATE(false, true);
  INFO("race detection " << detect);
  ImmediatePolicy immediate;
  SECTION("released twice by the program") {
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.alloc(b, 0, 256).release(b).release(b);
    RunResult r = run(pb.scenario(), immediate, options(detect));
    CHECK(r.double_frees == 1);
    CHECK(records(r, FindingKind::DoubleFree) == 1);
    CHECK(only(r, FindingKind::DoubleFree));
  }
  SECTION("freed twice by the policy: the detector sees the first free, the engine refuses the second") {
    TwiceFreePolicy twice;
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.alloc(b, 0, 256).release(b);
    RunResult r = run(pb.scenario(), twice, options(detect));
    CHECK(r.double_frees == 1);
    CHECK(records(r, FindingKind::DoubleFree) == 1);
    CHECK(only(r, FindingKind::DoubleFree));
    CHECK(r.frees == 1);
  }
  SECTION("used after release") {
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.alloc(b, 0, 256).release(b).kernel(0, Duration::fixed(10), {b}, {});
    RunResult r = run(pb.scenario(), immediate, options(detect));
    CHECK(r.use_after_release == 1);
    CHECK(records(r, FindingKind::UseAfterRelease) == 1);
    CHECK(only(r, FindingKind::UseAfterRelease));
  }
  SECTION("released but never allocated") {
    ProgramBuilder pb;
    pb.release(pb.buffer("b"));
    RunResult r = run(pb.scenario(), immediate, options(detect));
    CHECK(r.unknown_frees == 1);
    CHECK(records(r, FindingKind::UnknownFree) == 1);
    CHECK(only(r, FindingKind::UnknownFree));
  }
  SECTION("held by the host at the end: the detector too sees an allocation never freed") {
    ProgramBuilder pb;
    pb.alloc(pb.buffer("b"), 0, 256);
    RunResult r = run(pb.scenario(), immediate, options(detect));
    CHECK(r.leaks == 1);
    REQUIRE(records(r, FindingKind::Leak) == 1);
    CHECK(r.findings[0].action_between == "buffer 'b' never released by the host program");
    CHECK(only(r, FindingKind::Leak));
  }
  SECTION("released and never freed") {
    NeverFreePolicy never;
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.alloc(b, 0, 256).release(b);
    RunResult r = run(pb.scenario(), never, options(detect));
    CHECK(r.leaks == 1);
    REQUIRE(records(r, FindingKind::Leak) == 1);
    CHECK(r.findings[0].action_between == "never returned to the pool by the end of the run");
    CHECK(r.findings[0].first.release_time >= 0);
    CHECK(only(r, FindingKind::Leak));
  }
  SECTION("freed by a callback after shutdown destroyed the pool: that allocation also leaked") {
    CallbackPolicy callback;
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.alloc(b, 0, 256).kernel(0, Duration::fixed(100), {}, {b}).release(b).shutdown(true);
    RunResult r = run(pb.scenario(), callback, options(detect));
    CHECK(r.callbacks_after_pool_destroyed == 1);
    CHECK(records(r, FindingKind::CallbackAfterPoolDestroyed) == 1);
    CHECK(r.leaks == 1);
    CHECK(records(r, FindingKind::Leak) == 1);
  }
}

TEST_CASE("a leak is counted per allocation instance, however it leaked", "[engine]") {
  // One buffer held by the host and one released but never freed: two leaks. (Before one owner
  // counted them, the host-held one hid the other: the engine's count of 1 won over the detector's 2.)
  NeverFreePolicy never;
  ProgramBuilder pb;
  BufferId held = pb.buffer("held"), dropped = pb.buffer("dropped");
  pb.alloc(held, 0, 256).alloc(dropped, 0, 256).release(dropped);
  // and a buffer allocated twice, released both times: two instances
  BufferId twice = pb.buffer("twice");
  pb.alloc(twice, 0, 256).release(twice).alloc(twice, 0, 256).release(twice);
  for (bool detect : {false, true}) {
    INFO("race detection " << detect);
    RunResult r = run(pb.scenario(), never, options(detect));
    CHECK(r.leaks == 4);
    CHECK(records(r, FindingKind::Leak) == LifetimeFindings::kMaxLeakRecords);
  }
}

TEST_CASE("lifetime records come before race records, leaks found at the end after them", "[engine]") {
  // Two streams reuse one chunk unordered (a latent race), a buffer is held to the end and
  // another is released but never freed.
  NeverFreePolicy never;
  ProgramBuilder pb({"side"});
  BufferId x = pb.buffer("x"), held = pb.buffer("held"), y = pb.buffer("y");
  pb.alloc(held, 0, 256).alloc(x, 0, 4096).kernel(0, Duration::fixed(1000), {}, {x}).release(x);
  pb.alloc(y, 1, 4096).kernel(1, Duration::fixed(10), {}, {y});
  ImmediatePolicy immediate;
  RunResult racy = run(pb.scenario(), immediate, options(true));
  REQUIRE(racy.races_latent == 1);
  REQUIRE(racy.leaks == 2);  // held and y (never released)
  // the interpreter reports both when the program ends, before the detector's records
  REQUIRE(racy.findings.size() == 3);
  CHECK(racy.findings[0].kind == FindingKind::Leak);
  CHECK(racy.findings[1].kind == FindingKind::Leak);
  CHECK(racy.findings[2].kind == FindingKind::Latent);

  RunResult parked = run(pb.scenario(), never, options(true));
  REQUIRE(parked.leaks == 3);  // x too: released, never freed (so no race either)
  REQUIRE(parked.findings.size() == 3);
  CHECK(parked.findings[2].action_between == "never returned to the pool by the end of the run");
  CHECK(parked.findings[2].first.alloc == x);
}
