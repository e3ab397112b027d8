// Latent-race counting on a chain of allocations reusing the same bytes (docs/races.md): the seed's
// hazard repeated, as `allocsim run seed-repro --semaphore 32` does. Every trial's buffer and every
// trial's scratch races, so each must appear in at least one counted latent pair (the last write
// alone found only the first and last few).
#include <catch2/catch.hpp>

#include <set>

#include "../engine/engine_test_support.h"

using namespace allocsim;
using namespace allocsim::test;

TEST_CASE("reuse chain: every allocation whose access races is counted in a latent pair") {
  constexpr int kTrials = 12;
  ProgramBuilder pb({"autotune"});
  std::vector<BufferId> xs, ss;
  for (int i = 0; i < kTrials; ++i) {
    BufferId x = pb.buffer("X" + std::to_string(i)), s = pb.buffer("scratch" + std::to_string(i));
    xs.push_back(x), ss.push_back(s);
    pb.alloc(x, 0, 1 << 20)
        .kernel(0, Duration::fixed(2000), {}, {x})      // fill
        .kernel(0, Duration::fixed(1'000'000))          // long kernel: compute runs far behind the host
        .kernel(0, Duration::fixed(2000), {x}, {})      // read
        .release(x)                                     // immediate: the bytes go back at once
        .alloc(s, 1, 1 << 20)
        .kernel(1, Duration::fixed(2000), {}, {s}, HostOpKind::Memset)
        .release(s);
  }
  ImmediatePolicy pol;
  SimOptions opt = quiet_options();
  opt.detect_races = true;
  opt.max_findings = 1000;
  RunResult r = run(pb.scenario(), pol, opt);
  REQUIRE(r.completed);
  std::set<BufferId> counted;
  for (const Finding& f : r.findings)
    if (f.kind == FindingKind::Latent) counted.insert(f.first.alloc), counted.insert(f.second.alloc);
  CHECK(r.races_latent >= std::uint64_t(kTrials));
  for (BufferId b : xs) CHECK(counted.count(b) == 1);
  for (BufferId b : ss) CHECK(counted.count(b) == 1);
}

TEST_CASE("reuse chain: ordered reuse (same stream) still counts nothing") {
  ProgramBuilder pb;
  for (int i = 0; i < 8; ++i) {
    BufferId x = pb.buffer("X" + std::to_string(i));
    pb.alloc(x, 0, 1 << 20).kernel(0, Duration::fixed(2000), {}, {x}).kernel(0, Duration::fixed(2000), {x}, {}).release(x);
  }
  ImmediatePolicy pol;
  SimOptions opt = quiet_options();
  opt.detect_races = true;
  RunResult r = run(pb.scenario(), pol, opt);
  REQUIRE(r.completed);
  CHECK(r.races_latent == 0);
}

TEST_CASE("reuse chain: a victim's data clobbered by many later allocations is still manifest") {
  // X0 is filled, then (while compute sits in a long kernel) eight scratch allocations on the
  // autotune stream reuse and zero X0's bytes one after another; X0's queued read then sees the
  // last one's zeros. Each allocation's own writes are kept per allocation, so the eight
  // overwrites cannot evict X0's write from the manifest check (a two-entry per-cell history did).
  ProgramBuilder pb({"autotune"});
  BufferId x = pb.buffer("X0");
  pb.alloc(x, 0, 1 << 20)
      .kernel(0, Duration::fixed(2000), {}, {x})      // fill X0
      .kernel(0, Duration::fixed(1'000'000))          // compute busy for 1 ms
      .kernel(0, Duration::fixed(2000), {x}, {})      // X0's last use, queued behind it
      .release(x);                                    // immediate: bytes back at once
  BufferId last_scratch = -1;
  for (int i = 0; i < 8; ++i) {
    BufferId s = pb.buffer("scratch" + std::to_string(i));
    pb.alloc(s, 1, 1 << 20).kernel(1, Duration::fixed(2000), {}, {s}, HostOpKind::Memset).release(s);
    last_scratch = s;
  }
  ImmediatePolicy pol;
  SimOptions opt = quiet_options();
  opt.detect_races = true;
  opt.max_findings = 100;
  RunResult r = run(pb.scenario(), pol, opt);
  REQUIRE(r.completed);
  CHECK(r.races_manifest == 1);
  bool found = false;
  for (const Finding& f : r.findings)
    if (f.kind == FindingKind::Manifest) found = f.first.alloc == x && f.second.alloc == last_scratch;
  CHECK(found);
}
