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
  // (event-poll and timestamp-frontier free a buffer used only on its own stream at once.)
  for (const char* name : {"deferred-callback", "host-sync", "batched-callback"}) {
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

namespace {

/// A PyTorch-trace-like program: buffer `p` existed before the recording began (600 KiB of a
/// 1 MiB device), the program uses it and frees it, then allocates `a` of the same size.
Scenario preexisting_scenario(bool release_first) {
  ProgramBuilder pb;
  BufferId p = pb.buffer("p"), a = pb.buffer("a");
  pb.program().preexisting.push_back(p);
  pb.program().preexisting_bytes.push_back(600 << 10);
  pb.kernel(0, Duration::fixed(100), {p}, {});
  if (release_first) pb.release(p);
  pb.alloc(a, 0, 600 << 10).kernel(0, Duration::fixed(100), {}, {a}).release(a);
  if (!release_first) pb.release(p);
  Scenario sc = pb.scenario();
  sc.device.memory_limit = 1 << 20;
  return sc;
}

}  // namespace

TEST_CASE("preexisting buffers are allocated at program start and their release frees memory", "[engine][memory]") {
  ImmediatePolicy pol;
  SimOptions opt = quiet_options();
  opt.detect_races = true;
  opt.params.set("oom_retry_timeout_ns", 1e6);
  SECTION("freed before the next allocation: it fits, in the freed bytes") {
    RunResult r = run(preexisting_scenario(true), pol, opt);
    REQUIRE(r.completed);
    CHECK(r.ooms == 0);
    CHECK(r.allocs == 2);
    CHECK(r.frees == 2);
    CHECK(r.leaks == 0);
    CHECK(r.peak_live_bytes == 600 << 10);  // p, then a; never both
    CHECK(r.peak_bytes_in_use >= 600 << 10);
    CHECK(r.races_latent == 0);  // same-stream reuse of p's bytes is ordered
    for (const std::string& w : r.warnings) CHECK_THAT(w, !Catch::Contains("before the trace began"));
  }
  SECTION("still held: the next allocation does not fit") {
    RunResult r = run(preexisting_scenario(false), pol, opt);
    REQUIRE(r.completed);
    CHECK(r.ooms == 1);
    CHECK(r.frees == 1);
  }
}

TEST_CASE("a preexisting buffer of unknown size is not allocated - its release is ignored", "[engine][memory]") {
  ProgramBuilder pb;
  BufferId p = pb.buffer("p");
  pb.program().preexisting.push_back(p);  // no preexisting_bytes entry
  pb.release(p);
  ImmediatePolicy pol;
  RunResult r = run(pb.scenario(), pol, quiet_options());
  REQUIRE(r.completed);
  CHECK(r.allocs == 0);
  CHECK(r.unknown_frees == 0);
  CHECK_FALSE(r.warnings.empty());
}

namespace {
/// Every chunk the engine handed out, in allocation order.
struct AllocRecorder final : Observer {
  std::vector<Addr> addrs;
  void on_alloc(AgentId, const BufferInfo& buf, TimeNs) override { addrs.push_back(buf.chunk.addr); }
};
}  // namespace

TEST_CASE("the engine places regions as the oracle's fake does, after garbage collection too", "[engine][memory]") {
  // tests/data/tsl_bfc/traces/edge_gc_on.trace as a program: twelve 1.5 MiB allocations fill
  // four regions, eleven are freed, and a 40 MiB request collects the empty regions and grows. The
  // new region starts past the collected ones (the oracle never reuses addresses).
  ProgramBuilder pb;
  std::vector<BufferId> small;
  for (int i = 0; i < 12; ++i) {
    small.push_back(pb.buffer("s" + std::to_string(i)));
    pb.alloc(small.back(), 0, 1572864);
  }
  for (int i = 1; i < 12; ++i) pb.release(small[std::size_t(i)]);
  const BufferId big = pb.buffer("big");
  pb.alloc(big, 0, 41943040);
  Scenario sc = pb.scenario();
  sc.device.memory_limit = 64 << 20;
  sc.device.allow_growth = true;
  sc.device.garbage_collection = true;
  ImmediatePolicy pol;
  AllocRecorder rec;
  RunResult r = run(sc, pol, quiet_options(), {&rec});
  REQUIRE(r.completed);
  REQUIRE(rec.addrs.size() == 13);
  CHECK(rec.addrs[11] == 19398656);
  CHECK(rec.addrs[12] == 31457280);
  CHECK(r.peak_pool_bytes == 64 << 20);
}
