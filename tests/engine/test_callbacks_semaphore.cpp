// Engine semantics: host callbacks (marker -> hand-off after the latency -> callback thread FIFO),
// the compute semaphore (capacity, release path), deadlock reports, lifetime findings.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "engine_test_support.h"

using namespace allocsim;
using namespace allocsim::test;

TEST_CASE("a deferred free runs on the callback thread after the device reaches it", "[engine]") {
  ProgramBuilder pb;
  BufferId b = pb.buffer("b");
  pb.alloc(b, 0, 1024).kernel(0, Duration::fixed(100), {}, {b}).release(b);
  CallbackPolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  CHECK(r.callbacks == 1);
  CHECK(r.frees == 1);
  CHECK(r.allocs == 1);
  CHECK(r.peak_pending_bytes == 1024);
  CHECK(r.peak_live_bytes == 1024);
  // kernel [10,110]; record at 110; callback stream waits, marker reached at 110; the callback
  // thread was asleep: it wakes at 210 (latency 100) and runs the callback [210,260]; the marker
  // holds its stream until the callback returns (CUDA).
  auto m = rec.labelled("callback-marker");
  REQUIRE(m.size() == 1);
  CHECK(m[0].start == 110);
  CHECK(m[0].end == 260);
  REQUIRE(rec.callbacks.size() == 1);
  CHECK(rec.callbacks[0] == std::pair<TimeNs, TimeNs>{210, 260});
  CHECK(r.makespan_ns == 260);
}

TEST_CASE("the callback thread runs callbacks one at a time in hand-off order", "[engine]") {
  ProgramBuilder pb({"autotune"});
  BufferId a = pb.buffer("a"), b = pb.buffer("b"), c = pb.buffer("c");
  // three frees whose markers reach the device close together: each callback takes 50 ns.
  pb.alloc(a, 0, 256).alloc(b, 0, 256).alloc(c, 0, 256).kernel(0, 100).release(a).release(b).release(c);
  CallbackPolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  REQUIRE(rec.callbacks.size() == 3);
  for (std::size_t i = 1; i < rec.callbacks.size(); ++i) {
    CHECK(rec.callbacks[i].first >= rec.callbacks[i - 1].second);  // no overlap: one thread
  }
  auto m = rec.labelled("callback-marker");
  REQUIRE(m.size() == 3);
  // the callback stream is FIFO and blocks at each marker until its callback returns
  CHECK(m[1].start >= m[0].end);
  CHECK(m[2].start >= m[1].end);
  CHECK(r.frees == 3);
}

TEST_CASE("callbacks back to back pay the callback thread's wake-up once", "[engine]") {
  // The H200 measured ~12 us from a marker on an idle stream to its callback, but ~1.1 us between
  // callbacks queued back to back: the wake-up is the thread's, not each callback's.
  ProgramBuilder pb;
  BufferId a = pb.buffer("a"), b = pb.buffer("b"), c = pb.buffer("c");
  pb.alloc(a, 0, 256).alloc(b, 0, 256).alloc(c, 0, 256);
  pb.kernel(0, Duration::fixed(1000), {}, {a, b, c}).release(a).release(b).release(c);
  CallbackPolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  // kernel [10,1010]: the three markers are all ready at 1010. The first wakes the thread (100),
  // each callback takes 50 and holds the callback stream; the next marker meets an awake thread.
  REQUIRE(rec.callbacks.size() == 3);
  CHECK(rec.callbacks[0] == std::pair<TimeNs, TimeNs>{1110, 1160});
  CHECK(rec.callbacks[1] == std::pair<TimeNs, TimeNs>{1160, 1210});
  CHECK(rec.callbacks[2] == std::pair<TimeNs, TimeNs>{1210, 1260});
  auto m = rec.labelled("callback-marker");
  REQUIRE(m.size() == 3);
  CHECK(m[0].start == 1010);
  CHECK(m[0].end == 1160);
  CHECK(m[1].start == 1160);
  CHECK(m[2].end == 1260);
}

TEST_CASE("a marker reached after the callback thread went idle pays the wake-up again", "[engine]") {
  ProgramBuilder pb;
  BufferId a = pb.buffer("a"), b = pb.buffer("b");
  pb.alloc(a, 0, 256).alloc(b, 0, 256);
  pb.kernel(0, Duration::fixed(1000), {}, {a}).release(a).kernel(0, Duration::fixed(1000), {}, {b}).release(b);
  CallbackPolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  REQUIRE(rec.callbacks.size() == 2);
  // first kernel ends at 1010: callback [1110,1160]. The second kernel ends later, on a thread
  // that has been idle since 1160: it wakes again (100).
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 2);
  CHECK(rec.callbacks[0] == std::pair<TimeNs, TimeNs>{1110, 1160});
  CHECK(rec.callbacks[1].first == k[1].end + 100);
}

TEST_CASE("a marker reached behind a device op wakes the callback thread after callback_after_op_ns", "[engine]") {
  // The H200's driver learns of a marker that waited behind a kernel about twice as late as of one
  // enqueued on an idle stream (results/hw/h200-chain); 0 keeps callback_latency_ns for both.
  SimOptions opt = quiet_options(1);
  opt.platform.callback_after_op_ns = 300;
  auto first_wake = [&](bool kernel_first) {
    ProgramBuilder pb;
    pb.begin_execution();
    if (kernel_first) pb.kernel(0, 1000);
    pb.end_execution().begin_execution().end_execution();
    ImmediatePolicy pol;
    SpanRecorder rec;
    RunResult r = run(pb.scenario(), pol, opt, {&rec});
    REQUIRE(r.completed);
    auto m = rec.labelled("callback-marker");
    REQUIRE(m.size() == 2);
    REQUIRE(rec.callbacks.size() == 2);
    CHECK(rec.blocked.at(0).second == rec.callbacks[0].first);  // the release wakes the host
    return std::pair<TimeNs, TimeNs>{m[0].start, rec.callbacks[0].first - m[0].start};
  };
  SECTION("behind a kernel: reached at its end, the callback 300 later") {
    CHECK(first_wake(true) == std::pair<TimeNs, TimeNs>{1010, 300});
  }
  SECTION("on an idle stream: reached as it is enqueued, callback_latency_ns later") {
    CHECK(first_wake(false).second == 100);
  }
  SECTION("0: callback_latency_ns behind a kernel too") {
    opt.platform.callback_after_op_ns = 0;
    CHECK(first_wake(true) == std::pair<TimeNs, TimeNs>{1010, 100});
  }
}

TEST_CASE("the host blocks on the semaphore at capacity and resumes on the callback release", "[engine]") {
  ProgramBuilder pb;
  pb.begin_execution().kernel(0, 1000).end_execution().begin_execution().kernel(0, 1000).end_execution();
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(1), {&rec});
  REQUIRE(r.completed);
  REQUIRE(rec.blocked.size() == 1);
  // kernel [10,1010]; EndExecution: record 11, wait 12, enqueue 13; marker at 1010 -> hand-off
  // 1110 -> release on the callback thread at 1110 wakes the host.
  CHECK(rec.blocked[0] == std::pair<TimeNs, TimeNs>{13, 1110});
  CHECK(r.host_stall_ns == 1097);
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 2);
  CHECK(k[1].start == 1120);
  CHECK(r.callbacks == 2);
}

TEST_CASE("a blocked host's wake-up: signal_wakeup_ns after a semaphore or OOM wait, sync_wakeup_ns after a sync",
          "[engine]") {
  SimOptions opt = quiet_options(1);
  opt.platform.sync_wakeup_ns = 500;
  // 0 (a profile from before it was measured): the signalled waits pay sync_wakeup_ns too.
  const TimeNs signal = GENERATE(TimeNs(0), TimeNs(7000));
  opt.platform.signal_wakeup_ns = signal;
  const TimeNs signalled_wake = signal > 0 ? signal : 500;
  SECTION("semaphore") {
    ProgramBuilder pb;
    pb.begin_execution().kernel(0, 1000).end_execution().begin_execution().kernel(0, 1000).end_execution();
    ImmediatePolicy pol;
    SpanRecorder rec;
    RunResult r = run(pb.scenario(), pol, opt, {&rec});
    REQUIRE(r.completed);
    REQUIRE(rec.blocked.size() == 1);
    CHECK(rec.blocked[0] == std::pair<TimeNs, TimeNs>{13, 1110 + signalled_wake});  // release at 1110, then the wake-up
  }
  SECTION("OOM wait woken by a deferred free") {
    ProgramBuilder pb;
    BufferId a = pb.buffer("a"), b = pb.buffer("b");
    pb.alloc(a, 0, 800 << 10).kernel(0, Duration::fixed(1000), {}, {a}).release(a).alloc(b, 0, 800 << 10).release(b);
    CallbackPolicy pol;
    Scenario sc = pb.scenario();
    sc.device.memory_limit = 1 << 20;
    SpanRecorder rec;
    RunResult r = run(sc, pol, opt, {&rec});
    REQUIRE(r.completed);
    REQUIRE(rec.callbacks.size() == 2);  // a's free (wakes the host), then b's
    REQUIRE(rec.blocked.size() == 1);
    CHECK(rec.blocked[0].second == rec.callbacks[0].first + signalled_wake);  // a's free runs at its callback's start
  }
  SECTION("stream synchronize: the host polls, sync_wakeup_ns whatever signal_wakeup_ns is") {
    ProgramBuilder pb;
    pb.kernel(0, 1000).stream_sync(0);
    ImmediatePolicy pol;
    SpanRecorder rec;
    RunResult r = run(pb.scenario(), pol, opt, {&rec});
    REQUIRE(r.completed);
    REQUIRE(rec.blocked.size() == 1);
    CHECK(rec.blocked[0] == std::pair<TimeNs, TimeNs>{10, 1010 + 500});
  }
}

TEST_CASE("the host returns late from its first launch after a semaphore or OOM wait, not after a sync wait",
          "[engine]") {
  // Each program run with the cost 0 and 700: what moves, and by how much.
  auto run_with = [](const Scenario& sc, FreePolicy& pol, int semaphore, TimeNs wake_first) {
    SimOptions opt = quiet_options(semaphore);
    opt.platform.wake_first_launch_ns = wake_first;
    SpanRecorder rec;
    RunResult r = run(sc, pol, opt, {&rec});
    REQUIRE(r.completed);
    std::vector<TimeNs> starts;
    for (const auto& k : rec.labelled("kernel")) starts.push_back(k.start);
    return std::pair{r.host_busy_ns, starts};
  };
  SECTION("semaphore: each wait's next launch, once") {
    ProgramBuilder pb({"side"});
    for (int i = 0; i < 3; ++i) pb.begin_execution().kernel(0, 1000).kernel(1, 1000).end_execution();
    ImmediatePolicy pol;
    const auto [busy0, starts0] = run_with(pb.scenario(), pol, 1, 0);
    const auto [busy, starts] = run_with(pb.scenario(), pol, 1, 700);
    CHECK(busy - busy0 == 2 * 700);  // two waits (executions 2 and 3), one charge each
    REQUIRE(starts.size() == 6);
    CHECK(starts[1] == starts0[1]);  // execution 1: no wait before it
    CHECK(starts[2] == starts0[2]);  // the first launch after the wait is queued at its usual time,
    CHECK(starts[3] - starts0[3] == 700);  // the host returns from it later: the next launch waits
  }
  SECTION("OOM wait woken by a deferred free") {
    ProgramBuilder pb({"side"});
    BufferId a = pb.buffer("a"), b = pb.buffer("b");
    pb.alloc(a, 0, 800 << 10).kernel(0, Duration::fixed(1000), {}, {a}).release(a).alloc(b, 0, 800 << 10);
    pb.kernel(0, Duration::fixed(1000), {}, {b}).kernel(1, 1000).release(b);
    CallbackPolicy pol;
    Scenario sc = pb.scenario();
    sc.device.memory_limit = 1 << 20;
    const auto [busy0, starts0] = run_with(sc, pol, 32, 0);
    const auto [busy, starts] = run_with(sc, pol, 32, 700);
    CHECK(busy - busy0 == 700);
    REQUIRE(starts.size() == 3);
    CHECK(starts[1] == starts0[1]);
    CHECK(starts[2] - starts0[2] == 700);
  }
  SECTION("stream synchronize: the host polls and does not sleep, nothing charged") {
    ProgramBuilder pb;
    pb.kernel(0, 1000).stream_sync(0).kernel(0, 1000);
    ImmediatePolicy pol;
    CHECK(run_with(pb.scenario(), pol, 32, 700) == run_with(pb.scenario(), pol, 32, 0));
  }
}

TEST_CASE("with enough semaphore capacity the host runs ahead without stalling", "[engine]") {
  ProgramBuilder pb;
  for (int i = 0; i < 4; ++i) pb.begin_execution().kernel(0, 1000).end_execution();
  ImmediatePolicy pol;
  RunResult r4 = run(pb.scenario(), pol, quiet_options(4));
  RunResult r1 = run(pb.scenario(), pol, quiet_options(1));
  REQUIRE(r4.completed);
  REQUIRE(r1.completed);
  CHECK(r4.host_stall_ns == 0);
  CHECK(r1.host_stall_ns > 0);
  CHECK(r1.makespan_ns > r4.makespan_ns);
}

TEST_CASE("a failed callback enqueue releases the semaphore unit at once", "[engine]") {
  ProgramBuilder pb;
  for (int i = 0; i < 3; ++i) pb.begin_execution().kernel(0, 100).end_execution();
  ImmediatePolicy pol;
  SimOptions opt = quiet_options(1);
  opt.params.set("callback_enqueue_failure", 1.0);
  RunResult r = run(pb.scenario(), pol, opt);
  REQUIRE(r.completed);  // no leaked unit, no deadlock
  CHECK(r.callbacks == 0);
  CHECK(r.host_stall_ns == 0);
  CHECK_FALSE(r.warnings.empty());
}

TEST_CASE("a deadlock stops the run with a message naming the blocked host", "[engine]") {
  ProgramBuilder pb;
  pb.begin_execution().kernel(0, 100).begin_execution().kernel(0, 100);
  ImmediatePolicy pol;
  RunResult r = run(pb.scenario(), pol, quiet_options(1));
  CHECK_FALSE(r.completed);
  CHECK_THAT(r.error, Catch::Contains("deadlock"));
  CHECK_THAT(r.error, Catch::Contains("host: waiting for compute semaphore (0/1 free)"));
  CHECK_THAT(r.error, Catch::Contains("op #2 (line 3)"));
}

TEST_CASE("an OOM wait with no free ever coming is reported as blocked, naming the pool", "[engine]") {
  ProgramBuilder pb;
  BufferId a = pb.buffer("a"), b = pb.buffer("b");
  pb.alloc(a, 0, 800 << 10).alloc(b, 0, 800 << 10);
  ImmediatePolicy pol;
  Scenario sc = pb.scenario();
  sc.device.memory_limit = 1 << 20;
  SimOptions opt = quiet_options();
  opt.params.set("oom_retry_timeout_ns", 1e6);
  RunResult r = run(sc, pol, opt);
  // The default on_oom waits up to the timeout for a free, then gives up: an OOM, not a hang.
  CHECK(r.completed);
  CHECK(r.ooms == 1);
  CHECK(r.host_stall_ns == 1000000);
  CHECK(r.leaks == 1);
}

TEST_CASE("an OOM retry succeeds when a deferred free returns memory", "[engine]") {
  ProgramBuilder pb;
  BufferId a = pb.buffer("a"), b = pb.buffer("b");
  pb.alloc(a, 0, 800 << 10).kernel(0, Duration::fixed(1000), {}, {a}).release(a).alloc(b, 0, 800 << 10).release(b);
  CallbackPolicy pol;
  Scenario sc = pb.scenario();
  sc.device.memory_limit = 1 << 20;
  RunResult r = run(sc, pol, quiet_options());
  REQUIRE(r.completed);
  CHECK(r.ooms == 0);
  CHECK(r.allocs == 2);
  CHECK(r.frees == 2);
  CHECK(r.host_stall_ns > 0);
  CHECK(r.peak_bytes_in_use <= (1u << 20));
}

TEST_CASE("a woken OOM retry's stale deadline timer does not count toward the makespan", "[engine]") {
  // Alloc a, use it, release (deferred), alloc b: OOM -> wait up to the deadline, woken early by
  // a's callback free. The superseded deadline timer must not move the end of the run.
  ProgramBuilder pb;
  BufferId a = pb.buffer("a"), b = pb.buffer("b");
  pb.alloc(a, 0, 800 << 10).kernel(0, Duration::fixed(1000), {}, {a}).release(a).alloc(b, 0, 800 << 10).release(b);
  CallbackPolicy pol;
  Scenario sc = pb.scenario();
  sc.device.memory_limit = 1 << 20;
  SimOptions opt = quiet_options();
  opt.params.set("oom_retry_timeout_ns", 1e9);
  SpanRecorder rec;
  RunResult r = run(sc, pol, opt, {&rec});
  REQUIRE(r.completed);
  CHECK(r.ooms == 0);
  REQUIRE(rec.blocked.size() == 1);
  CHECK(rec.blocked[0].second < 100000);  // woken by the free, well before the 1 s deadline
  CHECK(r.makespan_ns < 100000);
}

TEST_CASE("max_events turns a long run into an error, never a hang", "[engine]") {
  ProgramBuilder pb;
  for (int i = 0; i < 100; ++i) pb.kernel(0, 10);
  ImmediatePolicy pol;
  SimOptions opt = quiet_options();
  opt.max_events = 20;
  RunResult r = run(pb.scenario(), pol, opt);
  CHECK_FALSE(r.completed);
  CHECK_THAT(r.error, Catch::Contains("max_events"));
}

TEST_CASE("lifetime violations are findings, not crashes", "[engine]") {
  ImmediatePolicy pol;
  SECTION("double free") {
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.alloc(b, 0, 256).release(b).release(b);
    RunResult r = run(pb.scenario(), pol, quiet_options());
    CHECK(r.double_frees == 1);
    REQUIRE_FALSE(r.findings.empty());
    CHECK(r.findings[0].kind == FindingKind::DoubleFree);
  }
  SECTION("use after release skips the op") {
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.alloc(b, 0, 256).release(b).kernel(0, Duration::fixed(10), {b}, {});
    SpanRecorder rec;
    RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
    CHECK(r.use_after_release == 1);
    CHECK(rec.labelled("kernel").empty());
  }
  SECTION("unknown free") {
    ProgramBuilder pb;
    BufferId b = pb.buffer("b");
    pb.release(b);
    RunResult r = run(pb.scenario(), pol, quiet_options());
    CHECK(r.unknown_frees == 1);
  }
  SECTION("leaks are counted, records capped") {
    ProgramBuilder pb;
    for (int i = 0; i < 10; ++i) pb.alloc(pb.buffer("b" + std::to_string(i)), 0, 256);
    RunResult r = run(pb.scenario(), pol, quiet_options());
    CHECK(r.leaks == 10);
    CHECK(r.findings.size() < 10);
  }
  SECTION("shutdown in the wrong order: callbacks free into a destroyed pool") {
    CallbackPolicy cb;
    ProgramBuilder good, bad;
    for (ProgramBuilder* pb : {&good, &bad}) {
      BufferId b = pb->buffer("b");
      pb->alloc(b, 0, 256).kernel(0, Duration::fixed(100), {}, {b}).release(b).shutdown(pb == &bad);
    }
    RunResult rg = run(good.scenario(), cb, quiet_options());
    RunResult rb = run(bad.scenario(), cb, quiet_options());
    CHECK(rg.completed);
    CHECK(rg.callbacks_after_pool_destroyed == 0);
    CHECK(rg.frees == 1);
    CHECK(rb.completed);
    CHECK(rb.callbacks_after_pool_destroyed == 1);
    CHECK(rb.frees == 0);
  }
}

namespace {
/// The host's blocked spans, in order (from, to, why).
struct HostBlocks final : Observer {
  std::vector<std::tuple<TimeNs, TimeNs, std::string>> all;
  void on_host_blocked(TimeNs f, TimeNs t, std::string_view why) override { all.emplace_back(f, t, why); }
};
/// Three frees pend behind a long kernel (1000 ns); the launch after them meets a limit of 2.
ProgramBuilder three_frees_behind_a_long_kernel() {
  ProgramBuilder pb;
  BufferId a = pb.buffer("a"), b = pb.buffer("b"), c = pb.buffer("c");
  pb.alloc(a, 0, 256).alloc(b, 0, 256).alloc(c, 0, 256);
  pb.kernel(0, Duration::fixed(1000), {}, {a, b, c}).release(a).release(b).release(c).kernel(0, 10);
  return pb;
}
}  // namespace

TEST_CASE("a host launch past the driver's pending host callbacks waits inside the call until one returns",
          "[engine][callbacks]") {
  // results/hw/h200-deferred: with 56 host callbacks pending, the H200's next launch blocked until
  // the GPU retired one. Three frees pend behind a long kernel; the launch after them meets the limit.
  ProgramBuilder pb = three_frees_behind_a_long_kernel();
  auto run_with_limit = [&](std::int64_t limit, HostBlocks& blocks, SpanRecorder& rec) {
    SimOptions o = quiet_options();
    o.platform.pending_callback_limit = limit;
    CallbackPolicy pol;
    return run(pb.scenario(), pol, o, {&blocks, &rec});
  };
  HostBlocks free_blocks, limited_blocks, roomy_blocks;
  SpanRecorder free_rec, limited_rec, roomy_rec;
  const RunResult unlimited = run_with_limit(0, free_blocks, free_rec);
  const RunResult limited = run_with_limit(2, limited_blocks, limited_rec);
  const RunResult roomy = run_with_limit(4, roomy_blocks, roomy_rec);
  REQUIRE(unlimited.completed);
  REQUIRE(limited.completed);
  CHECK(free_blocks.all.empty());
  CHECK(roomy_blocks.all.empty());
  CHECK(roomy.host_busy_ns == unlimited.host_busy_ns);
  // Callbacks return at 1160, 1210, 1260 (as above): the second return leaves one pending, below 2.
  REQUIRE(limited_blocks.all.size() == 1);
  const auto& [from, to, why] = limited_blocks.all[0];
  CHECK(why == std::string(kCallbackSlotWait));
  CHECK(to == 1210);
  // Inside the launch call: the host's busy time, not a stall it chose.
  CHECK(limited.host_busy_ns == unlimited.host_busy_ns + (to - from));
  CHECK(limited.host_stall_ns == unlimited.host_stall_ns);
  // The op itself was queued before the wait, behind the long kernel and its records: same span.
  CHECK(limited_rec.labelled("kernel").back().start == free_rec.labelled("kernel").back().start);
}

TEST_CASE("through a relay (callback_relay) a pending callback's slot frees at the hand-over, before its body runs",
          "[engine][callbacks]") {
  // The HIP backend's driver callback only hands the body to its relay thread, so the driver's
  // slot is free once the GPU reaches the marker (results/hw/h200-relay: 512 launches and
  // callbacks with the bodies held never blocked). The program of the test above, limit 2.
  ProgramBuilder pb = three_frees_behind_a_long_kernel();
  auto run_relay = [&](std::int64_t relay, HostBlocks& blocks) {
    SimOptions o = quiet_options();
    o.platform.pending_callback_limit = 2;
    o.platform.callback_relay = relay;
    CallbackPolicy pol;
    return run(pb.scenario(), pol, o, {&blocks});
  };
  HostBlocks held, relayed;
  const RunResult direct = run_relay(0, held);
  const RunResult relay = run_relay(1, relayed);
  REQUIRE(direct.completed);
  REQUIRE(relay.completed);
  CHECK(relay.frees == 3);
  REQUIRE(held.all.size() == 1);
  REQUIRE(relayed.all.size() == 1);
  CHECK(std::get<2>(relayed.all[0]) == std::string(kCallbackSlotWait));
  // The markers reach their stream's head after the long kernel; the second hand-over frees a
  // slot then, while held until the second body returns (1210) without the relay.
  CHECK(std::get<1>(held.all[0]) == 1210);
  CHECK(std::get<1>(relayed.all[0]) >= 1000);
  CHECK(std::get<1>(relayed.all[0]) < 1210);
}

TEST_CASE("through a relay, callback_handover_ns holds a marker reached behind a kernel, its stream and its slot",
          "[engine][callbacks]") {
  // calibrate times a callback behind a kernel in two parts: the kernel's end to the driver handing
  // it to the relay (about 78 us of 100 on the H200), then the relay's thread taking it up. The
  // slot and the marker's stream are the driver's until the hand-over (results/hw/peak-medians);
  // a marker ready just as the driver hands one over goes with it (results/hw/h200-peak-median).
  ProgramBuilder pb = three_frees_behind_a_long_kernel();
  auto run_handover = [&](TimeNs handover, HostBlocks& blocks, SpanRecorder& rec) {
    SimOptions o = quiet_options();
    o.platform.pending_callback_limit = 2;
    o.platform.callback_relay = 1;
    o.platform.callback_after_op_ns = 300;
    o.platform.callback_handover_ns = handover;
    CallbackPolicy pol;
    return run(pb.scenario(), pol, o, {&blocks, &rec});
  };
  HostBlocks at_reach_blocks, short_blocks, long_blocks;
  SpanRecorder at_reach, short_handover, long_handover;
  REQUIRE(run_handover(0, at_reach_blocks, at_reach).completed);
  REQUIRE(run_handover(200, short_blocks, short_handover).completed);
  const RunResult long_run = run_handover(500, long_blocks, long_handover);
  REQUIRE(long_run.completed);
  CHECK(long_run.frees == 3);
  const std::vector<DeviceOpSpan> h0 = at_reach.labelled("callback-handoff"), h200 = short_handover.labelled("callback-handoff"),
                                  h500 = long_handover.labelled("callback-handoff");
  REQUIRE(h0.size() == 3);
  REQUIRE(h200.size() == 3);
  REQUIRE(h500.size() == 3);
  // 0: handed over as the marker is reached; otherwise that long after the reach.
  CHECK(h0[0].end == h0[0].start);
  CHECK(h200[0].start == h0[0].start);
  CHECK(h200[0].end == h200[0].start + 200);
  // The marker holds its callback stream; the next one, ready behind it, goes at the same hand-over.
  CHECK(h200[1].start == h200[0].end);
  CHECK(h200[1].end == h200[1].start);
  // The host at the limit waits for the hand-over that frees its slot, 200 later than the reach.
  REQUIRE(at_reach_blocks.all.size() == 1);
  REQUIRE(short_blocks.all.size() == 1);
  CHECK(std::get<1>(at_reach_blocks.all[0]) == h0[1].end);
  CHECK(std::get<1>(short_blocks.all[0]) == h200[1].end);
  CHECK(std::get<1>(short_blocks.all[0]) == std::get<1>(at_reach_blocks.all[0]) + 200);
  // The body starts callback_after_op_ns after the reach, or at the hand-over when that is later.
  REQUIRE(!short_handover.callbacks.empty());
  REQUIRE(!long_handover.callbacks.empty());
  CHECK(short_handover.callbacks[0].first == h200[0].start + 300);
  CHECK(long_handover.callbacks[0].first == h500[0].end);
  CHECK(h500[0].end == h500[0].start + 500);
}
