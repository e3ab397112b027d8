// The validation kernel's check pass with op_check_sweep (core/platform.h): it reads an op's reads
// in address order over the pass, so another allocation's write that lands while the pass runs is
// seen only on words the pass has not reached yet. Without the switch every read counts at the
// pass's end and any write before it is seen.
//
// The program: x (8 MiB) is filled, then read by a kernel whose check pass takes 8 us (1 us per
// MiB); the host releases x at once (immediate), and a 1 MiB buffer y on another stream takes
// x's first or last MiB (behind a pad of 7 MiB for the last) and is zeroed about halfway through
// that pass: past the first MiB's read, before the last one's.
#include <catch2/catch.hpp>

#include "allocsim/core/policy.h"
#include "allocsim/core/scenario.h"
#include "allocsim/engine/simulate.h"

using namespace allocsim;

namespace {

HostOp op(HostOpKind k, StreamId s, double ns = 0) {
  HostOp o;
  o.kind = k;
  o.stream = s;
  o.duration = Duration::fixed(ns);
  return o;
}

HostOp alloc(BufferId b, StreamId s, std::uint64_t bytes) {
  HostOp a = op(HostOpKind::Alloc, s);
  a.buffer = b;
  a.bytes = bytes;
  return a;
}

HostOp release(BufferId b) {
  HostOp r = op(HostOpKind::Release, kNoStream);
  r.buffer = b;
  return r;
}

Scenario zeroing_during_the_check(bool at_the_end) {
  Scenario sc;
  sc.name = "check-sweep";
  Program& p = sc.program;
  p.streams = {{"compute", true}, {"other", false}};
  p.buffer_names = {"x", "y", "pad"};
  p.ops.push_back(alloc(0, 0, 8 << 20));
  HostOp fill = op(HostOpKind::Kernel, 0, 10'000);
  fill.writes = {{0}};
  p.ops.push_back(fill);
  HostOp reader = op(HostOpKind::Kernel, 0, 0);
  reader.reads = {{0}};
  p.ops.push_back(reader);
  p.ops.push_back(release(0));
  if (at_the_end) p.ops.push_back(alloc(2, 1, 7 << 20));
  p.ops.push_back(alloc(1, 1, 1 << 20));
  p.ops.push_back(op(HostOpKind::Kernel, 1, 11'000));  // holds the zeroing back to mid-pass
  HostOp zero = op(HostOpKind::Memset, 1, 1'000);
  zero.writes = {{1}};
  p.ops.push_back(zero);
  p.ops.push_back(release(1));
  if (at_the_end) p.ops.push_back(release(2));
  return sc;
}

RunResult run(bool at_the_end, bool sweep) {
  Params params;
  auto policy = make_policy("immediate", params);
  auto guard = make_guard("none", params);
  REQUIRE(policy);
  REQUIRE(guard);
  SimOptions o;
  o.max_findings = 100;
  for (const PlatformField& f : kPlatformFields)  // every cost 0 but the ones the timing above needs
    if (f.ns) o.platform.*f.ns = 0;
  o.platform.launch_overhead_ns = 1'000;
  o.platform.op_check_ns_per_mib = 1'000;
  o.platform.op_check_sweep = sweep ? 1 : 0;
  return simulate(zeroing_during_the_check(at_the_end), *policy, *guard, o);
}

}  // namespace

TEST_CASE("check sweep: a zeroing of words the check pass has read already goes unseen", "[race][sweep]") {
  const RunResult swept = run(false, true), at_end = run(false, false);
  REQUIRE(swept.completed);
  REQUIRE(at_end.completed);
  CHECK(swept.races_latent == 1);  // the pair races either way: only what the read sees differs
  CHECK(at_end.races_latent == 1);
  CHECK(swept.races_manifest == 0);
  CHECK(at_end.races_manifest == 1);
}

TEST_CASE("check sweep: a zeroing of words the check pass has yet to read is seen", "[race][sweep]") {
  const RunResult swept = run(true, true), at_end = run(true, false);
  REQUIRE(swept.completed);
  CHECK(swept.races_manifest == 1);
  CHECK(at_end.races_manifest == 1);
}
