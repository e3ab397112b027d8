// Host blocking by cause and device idle time (issue 15): each blocked interval of the host is
// counted under exactly one cause (a policy's or guard's Wait step, the compute semaphore, an OOM
// wait, the program's own synchronisations), so the four sum to host_stall_ns; device idle time is
// the time within the makespan when no stream runs a device op.
#include <catch2/catch.hpp>
#include <string>

#include "allocsim/core/policy.h"
#include "allocsim/results/runner.h"
#include "allocsim/scenarios/loader.h"
#include "engine_test_support.h"

using namespace allocsim;
using namespace allocsim::test;

namespace {

TimeNs blocked_sum(const RunResult& r) {
  return r.host_blocked_policy_ns + r.host_blocked_semaphore_ns + r.host_blocked_oom_ns +
         r.host_blocked_sync_ns;
}

/// Frees after the host has waited for the buffer's last-use stream to drain (host-sync's shape).
class DrainThenFreePolicy final : public FreePolicy {
 public:
  std::string_view name() const override { return "test-drain-then-free"; }
  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    const Chunk c = buf.chunk;
    const BufferId id = buf.id;
    plan.push_back(Step::wait_stream(buf.last_use_stream == kNoStream ? 0 : buf.last_use_stream));
    plan.push_back(Step::run([c, id](Backend& b, Plan&) { b.pool_free(c, id); }));
  }
};

/// Before a non-compute stream uses fresh memory, the host synchronises the device (PR #980's shape).
class DeviceSyncGuard final : public Guard {
 public:
  std::string_view name() const override { return "test-device-sync"; }
  void before_allocate(Backend&, StreamId, Plan& plan) override { plan.push_back(Step::wait_all()); }
};

}  // namespace

TEST_CASE("host blocking: a policy's wait counts as policy", "[engine][blocking]") {
  ProgramBuilder pb;
  BufferId b = pb.buffer("b");
  pb.alloc(b, 0, 1024).kernel(0, Duration::fixed(1000), {}, {b}).release(b);
  DrainThenFreePolicy pol;
  RunResult r = run(pb.scenario(), pol, quiet_options());
  REQUIRE(r.completed);
  // kernel [10, 1010]; the release at 10 waits for compute to drain
  CHECK(r.host_blocked_policy_ns == 1000);
  CHECK(r.host_blocked_semaphore_ns == 0);
  CHECK(r.host_blocked_oom_ns == 0);
  CHECK(r.host_blocked_sync_ns == 0);
  CHECK(blocked_sum(r) == r.host_stall_ns);
}

TEST_CASE("host blocking: a guard's wait counts as policy", "[engine][blocking]") {
  ProgramBuilder pb({"autotune"});
  BufferId a = pb.buffer("a"), s = pb.buffer("scratch");
  pb.alloc(a, 0, 1024).kernel(0, Duration::fixed(1000), {}, {a}).alloc(s, 1, 1024);
  pb.kernel(1, Duration::fixed(100), {}, {s}).release(s).release(a);
  ImmediatePolicy pol;
  DeviceSyncGuard guard;
  SimOptions opt = quiet_options();
  RunResult r = simulate(pb.scenario(), pol, guard, opt);
  REQUIRE(r.completed);
  CHECK(r.host_blocked_policy_ns == 1000);  // the device sync before the scratch's first use: 10 -> 1010
  CHECK(r.host_blocked_sync_ns == 0);
  CHECK(blocked_sum(r) == r.host_stall_ns);
}

TEST_CASE("host blocking: the compute semaphore counts as semaphore", "[engine][blocking]") {
  ProgramBuilder pb;
  pb.begin_execution().kernel(0, 1000).end_execution().begin_execution().kernel(0, 1000).end_execution();
  ImmediatePolicy pol;
  RunResult r = run(pb.scenario(), pol, quiet_options(1));
  REQUIRE(r.completed);
  CHECK(r.host_blocked_semaphore_ns == 1097);  // [13, 1110]: see test_callbacks_semaphore.cpp
  CHECK(r.host_blocked_policy_ns == 0);
  CHECK(r.host_blocked_oom_ns == 0);
  CHECK(r.host_blocked_sync_ns == 0);
  CHECK(blocked_sum(r) == r.host_stall_ns);
}

TEST_CASE("host blocking: an OOM wait counts as oom", "[engine][blocking]") {
  ProgramBuilder pb;
  BufferId a = pb.buffer("a"), b = pb.buffer("b");
  pb.alloc(a, 0, 800 << 10)
      .kernel(0, Duration::fixed(1000), {}, {a})
      .release(a)
      .alloc(b, 0, 800 << 10)
      .release(b);
  CallbackPolicy pol;
  Scenario sc = pb.scenario();
  sc.device.memory_limit = 1 << 20;
  SpanRecorder rec;
  RunResult r = run(sc, pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  REQUIRE(rec.blocked.size() == 1);
  CHECK(r.host_blocked_oom_ns == rec.blocked[0].second - rec.blocked[0].first);
  CHECK(r.host_blocked_oom_ns > 0);
  CHECK(r.host_blocked_policy_ns == 0);
  CHECK(r.host_blocked_sync_ns == 0);
  CHECK(blocked_sum(r) == r.host_stall_ns);
}

TEST_CASE("host blocking: the program's own syncs count as sync", "[engine][blocking]") {
  ProgramBuilder pb({"copy"});
  EventId e = pb.event("e");
  // stream sync [10, 1010]; event sync [1021, 1520] (the copy-stream kernel runs [1020, 1520], its
  // record is enqueued at 1021); device sync [1530, 1730]; shutdown's drain blocks nothing.
  pb.kernel(0, 1000).stream_sync(0);
  pb.kernel(1, 500).record(e, 1).event_sync(e);
  pb.kernel(0, 200).device_sync().shutdown();
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  TimeNs sum = 0;
  for (const auto& [from, to] : rec.blocked) sum += to - from;
  CHECK(rec.blocked.size() == 3);
  CHECK(r.host_blocked_sync_ns == sum);
  CHECK(r.host_blocked_sync_ns == 1000 + 499 + 200);
  CHECK(r.host_blocked_policy_ns == 0);
  CHECK(r.host_blocked_semaphore_ns == 0);
  CHECK(r.host_blocked_oom_ns == 0);
  CHECK(blocked_sum(r) == r.host_stall_ns);
}

TEST_CASE("device idle: time in the makespan with no device op running on any stream", "[engine][blocking]") {
  ImmediatePolicy pol;
  SECTION("a gap between two kernels on one stream") {
    ProgramBuilder pb;
    pb.kernel(0, 100).host_delay(1000).kernel(0, 100);
    RunResult r = run(pb.scenario(), pol, quiet_options());
    REQUIRE(r.completed);
    // [10, 110] and [1020, 1120]: makespan 1120, busy 200
    CHECK(r.makespan_ns == 1120);
    CHECK(r.device_idle_ns == 920);
  }
  SECTION("overlapping kernels on two streams count once") {
    ProgramBuilder pb({"other"});
    pb.kernel(0, 100).kernel(1, 100);
    RunResult r = run(pb.scenario(), pol, quiet_options());
    REQUIRE(r.completed);
    // [10, 110] and [20, 120]: busy [10, 120]
    CHECK(r.makespan_ns == 120);
    CHECK(r.device_idle_ns == 10);
  }
  SECTION("callback markers and event waits are not device ops") {
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.alloc(b, 0, 1024).kernel(0, Duration::fixed(100), {}, {b}).release(b);
    CallbackPolicy cb;
    RunResult r = run(pb.scenario(), cb, quiet_options());
    REQUIRE(r.completed);
    // kernel [10, 110]; the free's marker hands over at 210, its callback runs to 260
    CHECK(r.makespan_ns == 260);
    CHECK(r.device_idle_ns == 160);
  }
}

TEST_CASE("host blocking by cause sums to the host stall on every built-in, policy and guard",
          "[engine][blocking]") {
  bool any_policy = false, any_semaphore = false, any_sync = false;
  for (const std::string name : {"seed-repro", "conv-autotune", "training-churn", "shutdown-order"}) {
    const Scenario s = load_scenario(name);
    for (const auto& p : list_policies())
      for (const auto& g : list_guards())
        for (int semaphore : {1, 32}) {
          RunConfig c;
          c.scenario = name;
          c.policy = p.name;
          c.guard = g.name;
          c.semaphore = semaphore;
          c.detect_races = false;
          const RunResult r = run_one(s, c);
          INFO(name << " under " << p.name << " + " << g.name << ", semaphore " << semaphore);
          REQUIRE(r.completed);
          CHECK(blocked_sum(r) == r.host_stall_ns);
          CHECK(r.device_idle_ns >= 0);
          CHECK(r.device_idle_ns <= r.makespan_ns);
          any_policy |= r.host_blocked_policy_ns > 0;
          any_semaphore |= r.host_blocked_semaphore_ns > 0;
          any_sync |= r.host_blocked_sync_ns > 0;
        }
  }
  CHECK(any_policy);     // host-sync, device-sync
  CHECK(any_semaphore);  // semaphore 1
  CHECK(any_sync);       // the autotuner's stream sync before its scratch's release
}

TEST_CASE("host time per free: the release plans' host time, work and waits, over the releases",
          "[engine][blocking]") {
  SECTION("a wait inside the release plan counts in full") {
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.alloc(b, 0, 1024).kernel(0, Duration::fixed(1000), {}, {b}).release(b);
    DrainThenFreePolicy pol;
    SimOptions opt = quiet_options();
    opt.platform.host_free_ns = 7;
    RunResult r = run(pb.scenario(), pol, opt);
    REQUIRE(r.completed);
    // the release starts at 10 (after the launch), waits for the kernel to end at 1010, frees (7)
    CHECK(r.releases == 1);
    CHECK(r.host_release_ns == 1000 + 7);
  }
  SECTION("a deferred free costs its event and callback calls; other ops cost nothing here") {
    ProgramBuilder pb;
    BufferId a = pb.buffer("a"), b = pb.buffer("b");
    pb.alloc(a, 0, 256).alloc(b, 0, 256).kernel(0, Duration::fixed(1000), {}, {a, b}).release(a).release(b);
    CallbackPolicy pol;
    SimOptions opt = quiet_options();
    opt.platform.event_create_ns = 3;
    opt.platform.event_destroy_ns = 5;
    RunResult r = run(pb.scenario(), pol, opt);
    REQUIRE(r.completed);
    // per release: create 3 + record 1 + stream wait 1 + destroy 5 + callback enqueue 1
    CHECK(r.releases == 2);
    CHECK(r.host_release_ns == 2 * (3 + 1 + 1 + 5 + 1));
  }
}
