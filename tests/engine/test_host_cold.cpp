// The host's slowdown after a wake-up (platform.h's host_cold_window_ns and host_cold_factor): the
// host's own costs begun within the window after it woke from a sleep on the compute semaphore are
// the factor times the profile's; a synchronize, which polls, does not slow it; program host work
// (a HostDelay: wall time on the GPU's host too) is never scaled.
#include <catch2/catch.hpp>

#include <utility>

#include "engine_test_support.h"

using namespace allocsim;
using namespace allocsim::test;

namespace {

SimOptions cold_options(int semaphore, TimeNs window, double factor) {
  SimOptions opt = quiet_options(semaphore);
  opt.platform.host_cold_window_ns = window;
  opt.platform.host_cold_factor = factor;
  return opt;
}

/// Two executions of one kernel each: at semaphore 1 the host sleeps on the semaphore between them.
ProgramBuilder two_executions(double gap_ns = 0) {
  ProgramBuilder pb;
  pb.begin_execution().kernel(0, 1000).end_execution().begin_execution();
  if (gap_ns > 0) pb.host_delay(gap_ns);
  pb.kernel(0, 1000).end_execution();
  return pb;
}

}  // namespace

TEST_CASE("host cold: a launch right after a semaphore wake-up costs the factor times its profile", "[engine]") {
  ImmediatePolicy pol;
  SpanRecorder rec;
  RunResult r = run(two_executions().scenario(), pol, cold_options(1, 100, 3), {&rec});
  REQUIRE(r.completed);
  REQUIRE(rec.blocked.size() == 1);
  // As in test_callbacks_semaphore.cpp: the host sleeps over [13, 1110]. Its next launch, begun at
  // 1110, costs 3 x 10: the kernel starts at 1140, not 1120.
  CHECK(rec.blocked[0] == std::pair<TimeNs, TimeNs>{13, 1110});
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 2);
  CHECK(k[1].start == 1140);
  // The host's busy time carries the slowdown: launch 30 instead of 10, and EndExecution's record,
  // wait and enqueue (begun at 1140, 1143, 1146, still inside the window) 3 each instead of 1.
  const RunResult warm = run(two_executions().scenario(), pol, quiet_options(1));
  CHECK(r.host_busy_ns == warm.host_busy_ns + 20 + 3 * 2);
}

TEST_CASE("host cold: costs begun past the window are the profile's", "[engine]") {
  ImmediatePolicy pol;
  SpanRecorder rec;
  // A host delay of 100 after the wake-up at 1110 (wall time: not scaled) takes the launch to 1210,
  // the window's end: it costs 10, and the kernel starts at 1220.
  RunResult r = run(two_executions(100).scenario(), pol, cold_options(1, 100, 3), {&rec});
  REQUIRE(r.completed);
  auto k = rec.labelled("kernel");
  REQUIRE(k.size() == 2);
  CHECK(k[1].start == 1220);
}

TEST_CASE("host cold: a synchronize does not slow the host, nor does a profile without the window", "[engine]") {
  ImmediatePolicy pol;
  SECTION("a stream sync polls") {
    ProgramBuilder pb;
    pb.kernel(0, 1000).stream_sync(0).kernel(0, 1000);
    SpanRecorder rec;
    RunResult r = run(pb.scenario(), pol, cold_options(32, 100, 3), {&rec});
    REQUIRE(r.completed);
    auto k = rec.labelled("kernel");
    REQUIRE(k.size() == 2);
    CHECK(k[1].start == k[0].end + 10);
  }
  SECTION("window 0") {
    SpanRecorder rec;
    RunResult r = run(two_executions().scenario(), pol, cold_options(1, 0, 3), {&rec});
    REQUIRE(r.completed);
    CHECK(rec.labelled("kernel")[1].start == 1120);
  }
}
