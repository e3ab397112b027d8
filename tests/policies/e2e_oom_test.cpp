// End to end through simulate(): OOM behaviour per policy is modelled and counted, never a crash.
#include <catch2/catch.hpp>

#include "allocsim/core/policy.h"
#include "e2e_programs.h"

using namespace allocsim;
using namespace allocsim::test;

namespace {
/// The seed hazard in a 6 MiB device: while X (4 MiB) is pending, the autotuner's 4 MiB scratch
/// does not fit.
Scenario tight_seed() {
  Scenario sc = seed_scenario();
  sc.device.memory_limit = 6 << 20;
  return sc;
}
}  // namespace

TEST_CASE("oom: scratch fails fast while X is pending under the callback policies", "[e2e][oom]") {
  for (std::string_view name : {"deferred-callback", "batched-callback"}) {
    const RunResult r = run(tight_seed(), name, "none");
    INFO(name << ": " << r.error);
    REQUIRE(r.completed);
    CHECK(r.ooms == 1);
    CHECK(r.races_latent == 0);
  }
}

TEST_CASE("oom: policies that free at release never run out here", "[e2e][oom]") {
  for (std::string_view name : {"immediate", "host-sync", "stream-aware", "event-poll", "timestamp-frontier"}) {
    const RunResult r = run(tight_seed(), name, "none");
    INFO(name << ": " << r.error);
    REQUIRE(r.completed);
    CHECK(r.ooms == 0);
  }
}

TEST_CASE("oom: event-poll syncs, frees its parked chunks and retries once", "[e2e][oom]") {
  // X's last use runs on the autotune stream (a record_stream use in PyTorch's terms), so X is
  // parked when the scratch does not fit.
  Scenario sc;
  sc.name = "policies-seed-side-use";
  ProgramBuilder pb(sc.program);
  const BufferId x = pb.buffer("X"), scratch = pb.buffer("scratch");
  const std::uint64_t bytes = 4 << 20;
  pb.simple(HostOpKind::BeginExecution);
  pb.alloc(x, kCompute, bytes);
  pb.device_op(HostOpKind::Kernel, kCompute, 10'000, {}, {x});     // fill X
  pb.device_op(HostOpKind::Kernel, kCompute, 1'000'000, {}, {});   // 1 ms spin
  pb.device_op(HostOpKind::Kernel, kAutotune, 100'000, {x}, {});   // read X on another stream
  pb.simple(HostOpKind::EndExecution);
  pb.release(x);
  pb.alloc(scratch, kAutotune, bytes);
  pb.device_op(HostOpKind::Memset, kAutotune, 5'000, {}, {scratch});
  pb.release(scratch);
  pb.simple(HostOpKind::Shutdown);
  sc.device.memory_limit = 6 << 20;
  const RunResult r = run(sc, "event-poll", "none");
  INFO(r.error);
  REQUIRE(r.completed);
  CHECK(r.ooms == 0);
  CHECK(r.races_latent == 0);
  CHECK(r.host_stall_ns >= 1'000'000);  // the sync waited out the 1 ms kernel
}

TEST_CASE("oom: compute allocations retry until deferred frees arrive (AllocatorRetry)", "[e2e][oom]") {
  Scenario sc = churn_scenario();
  sc.device.memory_limit = 48 << 20;  // below deferred-callback's unconstrained peak at semaphore 16
  for (const RegistryEntry& e : list_policies()) {
    const RunResult r = run(sc, e.name, "none", 16);
    INFO(e.name << ": " << r.error);
    REQUIRE(r.completed);
    CHECK(r.ooms == 0);
    CHECK(r.allocs == 480);
    CHECK(r.peak_bytes_in_use <= sc.device.memory_limit);
    CHECK(r.races_latent == 0);
  }
}

// A WaitPoolFree deadline timer superseded by an earlier free must not move the end of the run to
// the deadline (10 s): the engine drops stale host timers unseen.
TEST_CASE("oom: a retry woken by a free does not stretch the makespan to the timeout", "[e2e][oom]") {
  Scenario sc = churn_scenario();
  sc.device.memory_limit = 48 << 20;
  const RunResult r = run(sc, "deferred-callback", "none", 16);
  REQUIRE(r.completed);
  CHECK(r.makespan_ns < 1'000'000'000);
}
