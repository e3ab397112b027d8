// Hazard analysis (xla_hazards.h) on hand-made profiles with known answers.
//
// The program: the host launches jit_step at t=100 us; its one kernel runs on the compute stream
// at [200, 500] us (the host ran ahead). The host frees buffer B, which the execution uses, at
// t=150 (while the kernel is queued). A compile thread then allocates A on B's bytes at t=160 and
// its autotune kernel runs on another stream. Where that kernel runs decides the answer.
#include <algorithm>
#include <catch2/catch.hpp>

#include "allocsim/scenarios/xla_hazards.h"
#include "allocsim/scenarios/xla_usage.h"

using namespace allocsim;
using namespace allocsim::xla;

namespace {

constexpr std::int64_t kUs = 1'000'000;  // picoseconds
constexpr Addr kBytesAt = 0x7f0000001000;
constexpr std::uint64_t kChunk = 256;

struct Case {
  std::int64_t b_free_us = 150;
  int b_free_thread = 0;           // index into the threads below
  int a_thread = 1;                // A allocated by the compile thread
  std::uint32_t a_use_stream = 1;  // A's op: on the autotune stream, launched by no program
  std::int64_t a_use_us = 300;     // A's op starts here, lasts 20 us
};

Profile make(const Case& c) {
  Profile p;
  p.source = "hand-made";
  p.allocator = "GPU_0_bfc";
  p.threads = {"python3", "tf_pjrt_compile_thread_pool/1", "py_xla_callback/1"};
  p.streams = {"Stream #14(Compute)", "Stream #40(Autotune)"};
  p.op_names = {"fusion", "autotune_kernel"};
  p.modules = {"", "jit_step"};
  p.executes = {{0, "jit_step", 100 * kUs, 10 * kUs}};
  p.device_ops = {{0, 0, 1, 200 * kUs, 300 * kUs}};
  const bool a_by_program = c.a_thread == 0 && c.a_use_stream == 0;
  p.device_ops.push_back({c.a_use_stream, 1, a_by_program ? 1u : 0u, c.a_use_us * kUs, 20 * kUs});
  if (a_by_program) p.executes.push_back({0, "jit_step", 155 * kUs, 10 * kUs});
  std::stable_sort(p.device_ops.begin(), p.device_ops.end(),
                   [](const DeviceOp& x, const DeviceOp& y) { return x.start_ps < y.start_ps; });
  using K = AllocatorEvent::Kind;
  auto ev = [](K kind, int thread, std::int64_t us) {
    AllocatorEvent e;
    e.kind = kind;
    e.thread = std::uint32_t(thread);
    e.addr = kBytesAt;
    e.requested_bytes = e.allocation_bytes = kChunk;
    e.time_ps = us * kUs;
    return e;
  };
  p.events = {ev(K::kAlloc, 0, 50), ev(K::kFree, c.b_free_thread, c.b_free_us),
              ev(K::kAlloc, c.a_thread, std::max<std::int64_t>(c.b_free_us, 150) + 10),
              ev(K::kFree, c.a_thread, 900)};
  p.allocs = p.frees = 2;
  return p;
}

HazardReport analyse(const Profile& p) { return find_hazards(p, map_usage(p)); }

}  // namespace

TEST_CASE("hazards: the autotuner's kernel overlaps the freed buffer's kernel: manifest", "[xla][hazards]") {
  const Profile p = make({});
  const HazardReport r = analyse(p);
  REQUIRE(r.hazards.size() == 1);
  const Hazard& h = r.hazards[0];
  CHECK(h.manifest);
  CHECK(h.buffer == 1);
  CHECK(h.owner == 0);
  CHECK(h.overlap_begin == kBytesAt);
  CHECK(h.overlap_end == kBytesAt + kChunk);
  CHECK(p.streams[p.device_ops[h.owner_op].stream] == "Stream #14(Compute)");
  CHECK(p.streams[p.device_ops[h.use_op].stream] == "Stream #40(Autotune)");
  CHECK(r.manifest() == 1);
  CHECK(r.latent() == 0);
  const std::string text = format_hazards(p, map_usage(p), r);
  CHECK_THAT(text, Catch::Contains("manifest: allocation #1"));
  CHECK_THAT(text, Catch::Contains("the use overlaps it by 200.000"));
}

TEST_CASE("hazards: the autotuner's kernel runs after the freed buffer's kernel: latent", "[xla][hazards]") {
  Case c;
  c.a_use_us = 550;
  const HazardReport r = analyse(make(c));
  REQUIRE(r.hazards.size() == 1);
  CHECK_FALSE(r.hazards[0].manifest);
  CHECK(r.latent() == 1);
}

TEST_CASE("hazards: none when the device is done before the free, or the free was XLA's deferred one",
          "[xla][hazards]") {
  Case done;
  done.b_free_us = 600;  // after the kernel's end at 500
  done.a_use_us = 700;
  HazardReport r = analyse(make(done));
  CHECK(r.hazards.empty());
  CHECK(r.in_flight_reuses == 0);

  Case deferred;
  deferred.b_free_thread = 2;  // the callback thread
  r = analyse(make(deferred));
  CHECK(r.hazards.empty());
  CHECK(r.in_flight_reuses == 0);
}

TEST_CASE("hazards: a reuse by the next execution on the same stream is ordered by the stream",
          "[xla][hazards]") {
  Case c;
  c.a_thread = 0;      // the host allocates A for a second execution of jit_step
  c.a_use_stream = 0;  // whose kernel runs on the compute stream, after the first one
  c.a_use_us = 520;
  const HazardReport r = analyse(make(c));
  CHECK(r.hazards.empty());
  CHECK(r.in_flight_reuses == 1);
  CHECK(r.stream_ordered == 1);
}
