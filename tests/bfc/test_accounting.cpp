// MemoryAccounting (pool/memory_accounting.h): the counters and peaks both backends report,
// fed the way a backend feeds them.
#include <catch2/catch.hpp>
#include <vector>

#include "allocsim/pool/memory_accounting.h"

using namespace allocsim;

namespace {
constexpr std::uint64_t MiB = 1024 * 1024;

struct Fixture {
  DevicePools pools{[] {
                      DeviceSpec spec;
                      spec.memory_limit = 64 * MiB;
                      spec.allow_growth = true;
                      return spec;
                    }(),
                    false};
  std::vector<std::pair<TimeNs, MemoryCounters>> samples;
  MemoryAccounting mem{pools, [this](TimeNs t, const MemoryCounters& m) { samples.push_back({t, m}); }};

  BufferInfo alloc(BufferId id, std::uint64_t bytes, TimeNs t) {
    BufferInfo b;
    b.id = id;
    b.requested_bytes = bytes;
    const Addr a = *pools.get(kSharedPool)->bfc().allocate(bytes);
    b.chunk = Chunk{kSharedPool, a, pools.get(kSharedPool)->bfc().chunk_size(a)};
    mem.sample(t);
    mem.on_alloc(b);
    mem.sample(t);
    return b;
  }
  void free(const BufferInfo& b, TimeNs t) {
    pools.get(kSharedPool)->bfc().deallocate(b.chunk.addr);
    mem.on_pool_free(b.chunk);
    mem.sample(t);
  }
};
}  // namespace

TEST_CASE("accounting: live, pending, in-use and pool bytes with their peaks and times",
          "[bfc][accounting]") {
  Fixture f;
  const BufferInfo a = f.alloc(0, 1000, 10);
  const BufferInfo b = f.alloc(1, 3 * MiB, 20);
  CHECK(f.mem.current().live == 1000 + 3 * MiB);
  CHECK(f.mem.current().in_use == 1024 + 4 * MiB);  // b gets a whole new 4 MiB region (not split below 2x)
  f.mem.on_host_release(b, 30);
  f.mem.flush();
  CHECK(f.mem.current().pending == 3 * MiB);
  CHECK(f.mem.requested_bytes(b.chunk) == 3 * MiB);
  f.free(b, 40);
  f.free(a, 50);
  CHECK_FALSE(f.mem.requested_bytes(b.chunk));
  const MemoryCounters& m = f.mem.current();
  CHECK((m.live == 0 && m.pending == 0 && m.in_use == 0));
  CHECK(m.pool == 6 * MiB);  // regions stay
  const MemoryPeaks& p = f.mem.peaks();
  CHECK((p.live.bytes == 1000 + 3 * MiB && p.live.time == 20));
  CHECK((p.pending.bytes == 3 * MiB && p.pending.time == 30));
  CHECK((p.in_use.bytes == 1024 + 4 * MiB && p.in_use.time == 20));
  CHECK((p.pool.bytes == 6 * MiB && p.pool.time == 20));
  RunResult r;
  f.mem.fill(r);
  CHECK((r.peak_pending_bytes == 3 * MiB && r.peak_pending_time == 30 &&
         r.peak_bytes_in_use == 1024 + 4 * MiB));
}

TEST_CASE("accounting: a release freed at once never shows pending, one freed later does",
          "[bfc][accounting]") {
  Fixture f;
  const BufferInfo a = f.alloc(0, MiB, 0);
  const BufferInfo b = f.alloc(1, MiB, 0);
  f.mem.on_host_release(a, 5);
  f.free(a, 5);  // the host's next pool call: its free (policy immediate)
  CHECK(f.mem.peaks().pending.bytes == 0);
  f.mem.on_host_release(b, 7);
  CHECK(f.mem.peaks().pending.bytes == 0);  // not sampled yet
  f.mem.flush();                            // the host did something else first
  CHECK((f.mem.peaks().pending.bytes == MiB && f.mem.peaks().pending.time == 7));
  f.free(b, 9);
  CHECK(f.mem.peaks().pending.time == 7);
  for (const auto& [t, m] : f.samples) CHECK(m.live + m.pending <= m.in_use);
}

TEST_CASE("accounting: the sink hears only changes", "[bfc][accounting]") {
  Fixture f;
  f.alloc(0, MiB, 0);
  const std::size_t n = f.samples.size();
  f.mem.sample(1);
  f.mem.flush();  // nothing deferred: no sample
  CHECK(f.samples.size() == n);
}
