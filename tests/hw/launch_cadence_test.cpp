// LaunchCadence: the simulator's launch cadence leaves out exactly the gaps the host blocked in.
#include <catch2/catch.hpp>

#include "allocsim/core/policy.h"
#include "allocsim/engine/simulate.h"
#include "allocsim/hw/launch_cadence.h"
#include "allocsim/scenarios/loader.h"

using namespace allocsim;

TEST_CASE("launch cadence: gaps between launches, less those the host waited in", "[hw][cadence]") {
  hw::LaunchCadence c;
  auto launch = [&c](TimeNs at) {
    DeviceOpSpan s;
    s.kind = DeviceOpKind::Kernel;
    s.enqueued = at;
    c.on_device_op(s);
  };
  DeviceOpSpan marker;
  marker.kind = DeviceOpKind::Marker;
  marker.enqueued = 15;
  c.on_device_op(marker);  // not a launch
  static_assert(hw::kWaitedGapNs == 2000, "the times below assume it");
  launch(3000), launch(0), launch(10);  // reported out of order, as ops end
  c.on_host_blocked(12, 2013, "sync");  // 2001 ns blocked in the gap 10 -> 3000: left out
  launch(5000);                          // 3000 -> 5000 counts
  c.on_host_blocked(5000, 7000, "sync");  // 2000 ns: no longer than a wait that did not block
  launch(8000);                           // 5000 -> 8000 counts
  CHECK(c.cadence_ns() == Approx(10 + 2000 + 3000));
}

TEST_CASE("launch cadence: seed-repro's executions each wait once for the autotune stream", "[hw][cadence]") {
  const Scenario s = load_scenario("seed-repro");
  auto policy = make_policy("immediate", s.params);
  auto guard = make_guard("none", s.params);
  SimOptions o;
  o.semaphore = 32;
  o.params = s.params;
  hw::LaunchCadence c;
  o.observers.push_back(&c);
  const RunResult r = simulate(s, *policy, *guard, o);
  // Each execution launches fill, spin, copy, memset, waits for the memset, then launches check:
  // of its five launches' gaps the one across the wait is left out, so four in five count, each
  // one launch's cost at least.
  const double launch = double(PlatformProfile{}.launch_overhead_ns);
  CHECK(c.cadence_ns() >= 20 * 4 * launch - 4 * launch);
  CHECK(c.cadence_ns() < double(r.host_busy_ns));
}
