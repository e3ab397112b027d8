// Unit tests with exact offsets, in the style of TSL's own BFC tests: a FakeSubAllocator based at
// 0 makes every address predictable, so each test states where BFC must place a chunk and why.
#include <catch2/catch.hpp>
#include <vector>

#include "allocsim/pool/bfc_pool.h"
#include "allocsim/pool/fake_sub_allocator.h"

using allocsim::Addr;
using allocsim::BfcOptions;
using allocsim::BfcPool;
using allocsim::FakeSubAllocator;

namespace {
constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

struct Chunk {
  Addr addr;
  std::uint64_t size;
  bool used;
  bool operator==(const Chunk&) const = default;
};
std::vector<Chunk> chunks(const BfcPool& p) {
  std::vector<Chunk> out;
  p.for_each_chunk([&](Addr a, std::uint64_t s, bool u) { out.push_back({a, s, u}); });
  return out;
}
}  // namespace

TEST_CASE("requests round to 256 B and regions start at 2 MiB with growth", "[bfc]") {
  BfcOptions o;
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  CHECK(pool.stats().pool_bytes == 0);  // regions are taken lazily
  CHECK(*pool.allocate(1) == 0);
  CHECK(pool.chunk_size(0) == 256);
  CHECK(*pool.allocate(257) == 256);
  CHECK(pool.chunk_size(256) == 512);
  CHECK(pool.stats().pool_bytes == 2 * MiB);
  CHECK(pool.next_region_bytes() == 4 * MiB);  // doubled after an Extend that did not need to grow
  CHECK(pool.stats().bytes_in_use == 768);
  CHECK(chunks(pool) == std::vector<Chunk>{{0, 256, true}, {256, 512, true}, {768, 2 * MiB - 768, false}});
}

TEST_CASE("zero-byte requests return nothing and change nothing", "[bfc]") {
  BfcOptions o;
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  CHECK_FALSE(pool.allocate(0).has_value());
  CHECK(pool.stats().num_allocs == 0);
  CHECK(pool.region_count() == 0);
  CHECK(sub.alloc_calls() == 0);
}

TEST_CASE("a chunk is split only at 2x the request or 128 MiB of waste", "[bfc]") {
  BfcOptions o;
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  // 3,000,000 B > the 2 MiB target: the target doubles to 4 MiB and is not doubled again.
  const Addr a = *pool.allocate(3000000);
  CHECK(a == 0);
  CHECK(pool.chunk_size(a) == 4 * MiB);  // 4 MiB < 2 x 3000064 and the waste < 128 MiB: no split
  CHECK(pool.next_region_bytes() == 4 * MiB);
  pool.deallocate(a);
  CHECK(*pool.allocate(2 * MiB) == 0);
  CHECK(pool.chunk_size(0) == 2 * MiB);  // exactly 2x: split
}

TEST_CASE("fragmentation_fraction lowers the waste threshold", "[bfc]") {
  BfcOptions o;
  o.allow_growth = false;
  o.memory_limit = 1 * GiB;
  o.fragmentation_fraction = 1.0 / 64;  // 16 MiB
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  CHECK(pool.max_internal_fragmentation_bytes() == 16 * MiB);
  const Addr big = *pool.allocate(600 * MiB);
  CHECK(pool.chunk_size(big) == 600 * MiB);  // 424 MiB of slack >= 16 MiB: split
  pool.deallocate(big);
  const Addr pin = *pool.allocate(1000 * MiB);
  (void)pin;
  // 24 MiB left; a 20 MiB request leaves 4 MiB < 16 MiB of waste and 24 < 2x20: whole chunk.
  const Addr tail = *pool.allocate(20 * MiB);
  CHECK(tail == 1000 * MiB);
  CHECK(pool.chunk_size(tail) == 24 * MiB);
}

TEST_CASE("best fit: smallest fitting chunk, ties to the lowest address", "[bfc]") {
  BfcOptions o;
  o.allow_growth = false;
  o.memory_limit = 64 * MiB;
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  // Layout: A(2 MiB) p B(1 MiB) p C(1 MiB) p rest, p = 256 B pins.
  const Addr A = *pool.allocate(2 * MiB), p1 = *pool.allocate(256);
  const Addr B = *pool.allocate(1 * MiB), p2 = *pool.allocate(256);
  const Addr C = *pool.allocate(1 * MiB), p3 = *pool.allocate(256);
  CHECK(A == 0);
  CHECK(B == 2 * MiB + 256);
  CHECK(C == 3 * MiB + 512);
  pool.deallocate(C);
  pool.deallocate(A);
  pool.deallocate(B);
  // Free: A (2 MiB @0), B (1 MiB), C (1 MiB), the tail. 1 MiB fits B and C equally: lowest wins.
  CHECK(*pool.allocate(1 * MiB) == B);
  // 1 MiB again: C (1 MiB) beats A (2 MiB) although A is lower.
  CHECK(*pool.allocate(1 * MiB) == C);
  // 1.5 MiB: A (2 MiB) is the smallest fit; 2 MiB < 2 x 1.5 MiB and 0.5 MiB of waste: not split.
  const Addr d = *pool.allocate(1536 * KiB);
  CHECK(d == A);
  CHECK(pool.chunk_size(d) == 2 * MiB);
  (void)p1, (void)p2, (void)p3;
}

TEST_CASE("freeing coalesces with both neighbours at once", "[bfc]") {
  BfcOptions o;
  o.allow_growth = false;
  o.memory_limit = 16 * MiB;
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  const Addr a = *pool.allocate(1 * MiB), b = *pool.allocate(1 * MiB), c = *pool.allocate(1 * MiB);
  pool.deallocate(a);
  pool.deallocate(c);  // merges with the free tail
  CHECK(chunks(pool) == std::vector<Chunk>{{0, MiB, false}, {MiB, MiB, true}, {2 * MiB, 14 * MiB, false}});
  pool.deallocate(b);
  CHECK(chunks(pool) == std::vector<Chunk>{{0, 16 * MiB, false}});
  CHECK(pool.free_chunk_count() == 1);
  CHECK(pool.largest_free_block() == 16 * MiB);
}

TEST_CASE("regions are not coalesced unless the sub-allocator supports it", "[bfc]") {
  for (bool coalesce : {false, true}) {
    BfcOptions o;
    o.coalesce_regions = coalesce;
    FakeSubAllocator sub(o);
    BfcPool pool(o, sub);
    const Addr a = *pool.allocate(2 * MiB);  // region 1: [0, 2 MiB)
    const Addr b = *pool.allocate(4 * MiB);  // region 2 starts where region 1 ends
    CHECK(a == 0);
    CHECK(b == 2 * MiB);
    pool.deallocate(a);
    pool.deallocate(b);
    CHECK(sub.regions_held() == 2);
    if (coalesce) {
      CHECK(pool.region_count() == 1);
      CHECK(chunks(pool) == std::vector<Chunk>{{0, 6 * MiB, false}});
    } else {
      CHECK(pool.region_count() == 2);
      CHECK(chunks(pool) == std::vector<Chunk>{{0, 2 * MiB, false}, {2 * MiB, 4 * MiB, false}});
    }
  }
}

TEST_CASE("alignment above 256 splits off a free prefix", "[bfc]") {
  BfcOptions o;
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  CHECK(*pool.allocate(256) == 0);
  const Addr a = *pool.allocate(1000, 4096);
  CHECK(a == 4096);
  CHECK(pool.chunk_size(a) == 1024);
  CHECK(chunks(pool) ==
        std::vector<Chunk>{{0, 256, true}, {256, 3840, false}, {4096, 1024, true}, {5120, 2 * MiB - 5120, false}});
  // A region for an alignment above 2 MiB starts on that alignment.
  const Addr big = *pool.allocate(8 * MiB, 16 * MiB);
  CHECK(big % (16 * MiB) == 0);
  CHECK(big == 16 * MiB);
  CHECK_THROWS_AS(pool.allocate(256, 3000), std::invalid_argument);
}

TEST_CASE("allow_growth=0 takes the whole limit at the first allocation, floored to 256", "[bfc]") {
  BfcOptions o;
  o.allow_growth = false;
  o.memory_limit = 1000003;
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  CHECK(sub.alloc_calls() == 0);
  CHECK(*pool.allocate(300000) == 0);
  CHECK(pool.stats().pool_bytes == 999936);
  CHECK_FALSE(pool.allocate(999936).has_value());  // OOM: no room, no growth
  CHECK(sub.alloc_calls() == 1);
}

TEST_CASE("garbage collection returns fully free regions only after Extend fails", "[bfc]") {
  for (bool gc : {false, true}) {
    BfcOptions o;
    o.memory_limit = 16 * MiB;
    o.garbage_collection = gc;
    FakeSubAllocator sub(o);
    std::vector<std::pair<bool, Addr>> events;
    sub.set_listener([&](bool added, Addr a, std::uint64_t) { events.emplace_back(added, a); });
    BfcPool pool(o, sub);
    const Addr keep = *pool.allocate(1 * MiB);  // region [0, 2 MiB), stays in use
    const Addr x = *pool.allocate(3 * MiB);     // region [2, 6 MiB): target 4 MiB
    const Addr y = *pool.allocate(7 * MiB);     // region [6, 14 MiB): target 8 MiB
    CHECK(pool.stats().pool_bytes == 14 * MiB);
    pool.deallocate(x);
    pool.deallocate(y);
    // 13 MiB: no free chunk fits, only 2 MiB left under the limit; GC frees the two empty regions.
    const auto z = pool.allocate(13 * MiB);
    if (!gc) {
      CHECK_FALSE(z.has_value());
      CHECK(pool.region_count() == 3);
    } else {
      REQUIRE(z.has_value());
      CHECK(pool.region_count() == 2);
      CHECK(sub.free_calls() == 2);
      CHECK(*z == 14 * MiB);  // addresses are never reused: the new region starts after the last
      CHECK(events == std::vector<std::pair<bool, Addr>>{
                          {true, 0}, {true, 2 * MiB}, {true, 6 * MiB}, {false, 2 * MiB}, {false, 6 * MiB}, {true, 14 * MiB}});
      CHECK(pool.stats().pool_bytes == 2 * MiB + 14 * MiB);
    }
    CHECK(pool.is_live(keep));
  }
}

TEST_CASE("the region size backs off by 0.9 when the sub-allocator refuses", "[bfc]") {
  BfcOptions o;
  o.allow_growth = false;
  o.memory_limit = 10 * MiB;
  FakeSubAllocator sub(o);
  sub.set_capacity(8 * MiB);
  BfcPool pool(o, sub);
  const Addr a = *pool.allocate(1 * MiB);
  CHECK(a == 0);
  // 10 MiB -> x0.9 (in float, rounded up to 256 B) 9437184 -> 8493568 -> 7644416: the first <= 8 MiB.
  CHECK(pool.stats().pool_bytes == 7644416);
  CHECK(pool.stats().pool_bytes <= 8 * MiB);
  CHECK(sub.alloc_calls() == 4);
}

TEST_CASE("stats, fragmentation and misuse", "[bfc]") {
  BfcOptions o;
  o.allow_growth = false;
  o.memory_limit = 4 * MiB;
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  CHECK(pool.fragmentation() == 0);
  const Addr a = *pool.allocate(1 * MiB), b = *pool.allocate(1 * MiB);
  (void)pool.allocate(1 * MiB);
  pool.deallocate(a);
  // Free: 1 MiB at 0 and the 1 MiB tail. Pool 4, in use 2, largest free 1: (4-2-1)/(4-2).
  (void)b;
  CHECK(pool.stats().bytes_in_use == 2 * MiB);
  CHECK(pool.stats().peak_bytes_in_use == 3 * MiB);
  CHECK(pool.stats().largest_free_block_bytes == 1 * MiB);
  CHECK(pool.fragmentation() == Approx(0.5));
  CHECK(pool.stats().num_allocs == 3);
  CHECK(pool.stats().largest_alloc_size == 1 * MiB);
  CHECK(BfcPool::bin_for_size(256) == 0);
  CHECK(BfcPool::bin_for_size(511) == 0);
  CHECK(BfcPool::bin_for_size(512) == 1);
  CHECK(BfcPool::bin_for_size(256 * MiB) == 20);
  CHECK(BfcPool::bin_for_size(16 * GiB) == 20);
  CHECK_THROWS_AS(pool.deallocate(a), std::invalid_argument);      // double free
  CHECK_THROWS_AS(pool.deallocate(12345), std::invalid_argument);  // never allocated
  CHECK_THROWS_AS(pool.chunk_size(a), std::invalid_argument);
  CHECK(pool.stats().bytes_in_use == 2 * MiB);  // misuse changed nothing
}
