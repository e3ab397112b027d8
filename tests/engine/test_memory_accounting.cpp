// Engine memory accounting: live / pending / in-use as a release turns into a pool free, and
// buffers that existed before a program began (Program::preexisting, PyTorch traces).
#include <catch2/catch.hpp>

#include "allocsim/core/policy.h"
#include "engine_test_support.h"

using namespace allocsim;
using namespace allocsim::test;

namespace {

/// A memory-counter recorder: every emission, in order.
struct MemoryRecorder final : Observer {
  std::vector<std::pair<TimeNs, MemoryCounters>> samples;
  void on_memory(TimeNs t, const MemoryCounters& m) override { samples.push_back({t, m}); }
};

SimOptions costly_free_options() {
  SimOptions o = quiet_options();
  o.platform.host_free_ns = 100;  // the host cost between release and free that exposed pending bytes
  o.platform.host_alloc_ns = 50;
  return o;
}

}  // namespace

TEST_CASE("immediate: a release and its free are one step, so no bytes are ever pending", "[engine][memory]") {
  ProgramBuilder pb({"autotune"});
  BufferId a = pb.buffer("a"), b = pb.buffer("b");
  pb.alloc(a, 0, 4 << 20).kernel(0, Duration::fixed(1000), {}, {a}).release(a);
  pb.alloc(b, 1, 4 << 20).kernel(1, Duration::fixed(10), {}, {b}).release(b);
  SECTION("the engine's test policy") {
    ImmediatePolicy pol;
    MemoryRecorder mem;
    RunResult r = run(pb.scenario(), pol, costly_free_options(), {&mem});
    REQUIRE(r.completed);
    CHECK(r.peak_pending_bytes == 0);
    CHECK(r.peak_live_bytes == 4 << 20);
    for (const auto& [t, m] : mem.samples) CHECK(m.pending == 0);
  }
  SECTION("the registered immediate policy") {
    auto pol = make_policy("immediate", Params{});
    REQUIRE(pol);
    RunResult r = run(pb.scenario(), *pol, costly_free_options());
    REQUIRE(r.completed);
    CHECK(r.peak_pending_bytes == 0);
    CHECK(r.frees == 2);
  }
}

TEST_CASE("policies that do not free at once still show their pending bytes", "[engine][memory]") {
  ProgramBuilder pb;
  BufferId a = pb.buffer("a");
  pb.alloc(a, 0, 1 << 20).kernel(0, Duration::fixed(1000), {}, {a}).release(a);
  for (const char* name : {"deferred-callback", "host-sync", "event-poll", "batched-callback", "timestamp-frontier"}) {
    auto pol = make_policy(name, Params{});
    REQUIRE(pol);
    RunResult r = run(pb.scenario(), *pol, costly_free_options());
    INFO(name);
    REQUIRE(r.completed);
    CHECK(r.peak_pending_bytes == 1 << 20);
  }
}

TEST_CASE("a host-sync release is pending from the release while the host waits", "[engine][memory]") {
  ProgramBuilder pb;
  BufferId a = pb.buffer("a");
  pb.alloc(a, 0, 1 << 20).kernel(0, Duration::fixed(1000), {}, {a}).release(a);
  auto pol = make_policy("host-sync", Params{});
  REQUIRE(pol);
  MemoryRecorder mem;
  RunResult r = run(pb.scenario(), *pol, costly_free_options(), {&mem});
  REQUIRE(r.completed);
  CHECK(r.peak_pending_bytes == 1 << 20);
  CHECK(r.peak_pending_time == r.peak_live_time + 10);  // released right after the 10 ns launch
  for (std::size_t i = 1; i < mem.samples.size(); ++i) CHECK(mem.samples[i].first >= mem.samples[i - 1].first);
}
