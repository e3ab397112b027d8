// Engine semantics: stream FIFO order, cross-stream overlap, event record / wait / query /
// synchronize, host stall. Times are derived by hand from round_platform() (launch 10 ns, event
// record / stream wait / callback enqueue / query 1 ns, callback latency 100 ns, run 50 ns).
#include <catch2/catch.hpp>

#include "engine_test_support.h"

using namespace allocsim;
using namespace allocsim::test;

TEST_CASE("ops on one stream run FIFO, each after the previous ends", "[engine]") {
  ProgramBuilder pb;
  pb.kernel(0, 100).kernel(0, 100).kernel(0, 100);
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 3);
  CHECK(k[0].start == 10);  // enqueued after one launch overhead
  CHECK(k[0].end == 110);
  CHECK(k[1].start == 110);
  CHECK(k[2].start == 210);
  CHECK(k[0].op_seq < k[1].op_seq);
  CHECK(k[1].op_seq < k[2].op_seq);
  CHECK(r.makespan_ns == 310);
  CHECK(r.host_stall_ns == 0);
}

TEST_CASE("an op cannot start before the host enqueued it", "[engine]") {
  ProgramBuilder pb;
  pb.kernel(0, 5).host_delay(1000).kernel(0, 5);
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 2);
  CHECK(k[0].start == 10);
  CHECK(k[1].start == 1020);  // 10 + 1000 host delay + 10 launch
}

TEST_CASE("ops on different streams overlap", "[engine]") {
  ProgramBuilder pb({"autotune"});
  pb.kernel(0, 100).kernel(1, 100);
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 2);
  CHECK(k[0].stream == 0);
  CHECK(k[1].stream == 1);
  CHECK(k[1].start == 20);
  CHECK(k[1].start < k[0].end);  // overlap
  CHECK(r.makespan_ns == 120);
}

TEST_CASE("a stream wait blocks until the recorded point is reached", "[engine]") {
  ProgramBuilder pb({"autotune"});
  EventId e = pb.event("done");
  pb.kernel(0, 100).record(e, 0).wait(1, e).kernel(1, 50);
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 2);
  CHECK(k[1].stream == 1);
  CHECK(k[1].start == 110);  // compute kernel [10,110], record completes at 110
  auto w = rec.labelled("event-wait");
  REQUIRE(w.size() == 1);
  CHECK(w[0].start == 12);
  CHECK(w[0].end == 110);
}

TEST_CASE("waiting on a never-recorded event is a no-op", "[engine]") {
  ProgramBuilder pb({"autotune"});
  EventId e = pb.event("never");
  pb.kernel(0, 1000).wait(1, e).kernel(1, 50);
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 2);
  const DeviceOpSpan& on_autotune = k[0].stream == 1 ? k[0] : k[1];
  CHECK(on_autotune.start == 21);  // 10 + 1 (stream wait) + 10: not held back by compute
}

TEST_CASE("a wait uses the record current at the wait - a re-record does not move it", "[engine]") {
  ProgramBuilder pb({"a", "b"});
  EventId e = pb.event("e");
  // first record on compute after a short kernel; wait; then re-record after a long kernel.
  pb.kernel(0, 100).record(e, 0).wait(1, e).kernel(1, 10).kernel(0, 10000).record(e, 0).wait(2, e).kernel(2, 10);
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 4);
  DeviceOpSpan on_a{}, on_b{};
  for (auto& s : k) {
    if (s.stream == 1) on_a = s;
    if (s.stream == 2) on_b = s;
  }
  CHECK(on_a.start == 110);    // first record
  CHECK(on_b.start == 10110);  // the re-record after the long kernel ([110, 10110])
}

TEST_CASE("host event synchronize blocks until completion and counts as stall", "[engine]") {
  ProgramBuilder pb({"autotune"});
  EventId e = pb.event("e");
  pb.kernel(0, 100).record(e, 0).event_sync(e).kernel(1, 10);
  ImmediatePolicy pol;
  SpanRecorder rec;
  SimOptions opt = quiet_options();
  opt.platform.sync_wakeup_ns = 5;
  RunResult r = run(pb.scenario(), pol, opt, {&rec});
  REQUIRE(r.completed);
  REQUIRE(rec.blocked.size() == 1);
  CHECK(rec.blocked[0].first == 11);
  CHECK(rec.blocked[0].second == 115);  // completion 110 + wake-up 5
  CHECK(r.host_stall_ns == 104);
  auto k = rec.labelled("kernel");
  CHECK(k.back().start == 125);
}

TEST_CASE("stream synchronize and device synchronize stall the host until drained", "[engine]") {
  ProgramBuilder pb({"autotune"});
  pb.kernel(0, 1000).kernel(1, 3000).stream_sync(0).host_delay(7).device_sync();
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(pb.scenario(), pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  REQUIRE(rec.blocked.size() == 2);
  CHECK(rec.blocked[0] == std::pair<TimeNs, TimeNs>{20, 1010});
  CHECK(rec.blocked[1] == std::pair<TimeNs, TimeNs>{1017, 3020});
  CHECK(r.host_stall_ns == (1010 - 20) + (3020 - 1017));
  CHECK(r.makespan_ns == 3020);
}

namespace {
struct HostEventAcquires final : Observer {
  int count = 0;
  void on_acquire_sync(AgentId a, std::uint64_t key) override {
    if (a == kHostAgent && SyncKind(key >> 56) == SyncKind::Event) ++count;
  }
};
}  // namespace

TEST_CASE("event query gives a happens-before edge only when it reports done", "[engine]") {
  ImmediatePolicy pol;
  {
    ProgramBuilder pb;
    EventId e = pb.event("e");
    pb.kernel(0, 1000).record(e, 0).event_query(e);  // queried at t=12: not done
    HostEventAcquires acq;
    RunResult r = run(pb.scenario(), pol, quiet_options(), {&acq});
    REQUIRE(r.completed);
    CHECK(acq.count == 0);
  }
  {
    ProgramBuilder pb;
    EventId e = pb.event("e");
    pb.kernel(0, 1000).record(e, 0).host_delay(5000).event_query(e);
    HostEventAcquires acq;
    RunResult r = run(pb.scenario(), pol, quiet_options(), {&acq});
    REQUIRE(r.completed);
    CHECK(acq.count == 1);
  }
}
