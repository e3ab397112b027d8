// Property tests: seeded random op sequences (allocs of mixed sizes and alignments, frees of
// random live blocks, some 0-byte requests) under every combination of growth, garbage
// collection and region coalescing. After every op the chunk map is checked against the
// invariants of the model, and every placement against a brute-force best fit computed from
// the chunk map itself (so the fast index is checked by a slow, obvious one).
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <vector>

#include "allocsim/core/chooser.h"
#include "allocsim/pool/bfc_pool.h"
#include "allocsim/pool/fake_sub_allocator.h"

using allocsim::Addr;
using allocsim::BfcOptions;
using allocsim::BfcPool;
using allocsim::FakeSubAllocator;

namespace {
constexpr std::uint64_t MiB = 1 << 20;

struct ChunkRec {
  Addr addr;
  std::uint64_t size;
  bool used;
};

std::vector<ChunkRec> chunk_map(const BfcPool& p) {
  std::vector<ChunkRec> out;
  p.for_each_chunk([&](Addr a, std::uint64_t s, bool u) { out.push_back({a, s, u}); });
  return out;
}

// All invariants; `live` is what the test believes is allocated (addr -> chunk size).
void check_invariants(const BfcPool& pool, const FakeSubAllocator& sub, const std::map<Addr, std::uint64_t>& live) {
  std::vector<std::pair<Addr, std::uint64_t>> regions;
  pool.for_each_region([&](Addr a, std::uint64_t b) { regions.emplace_back(a, b); });
  const std::vector<ChunkRec> chunks = chunk_map(pool);

  // Every byte of every region is in exactly one chunk: chunks tile each region in order.
  std::size_t ci = 0;
  std::uint64_t region_bytes = 0, used_bytes = 0, largest_free = 0, free_count = 0;
  Addr prev_region_end = 0;
  for (std::size_t r = 0; r < regions.size(); ++r) {
    const auto [begin, bytes] = regions[r];
    REQUIRE(begin % 256 == 0);
    REQUIRE(bytes % 256 == 0);
    if (r > 0) REQUIRE(begin >= prev_region_end);  // regions sorted and disjoint
    prev_region_end = begin + bytes;
    region_bytes += bytes;
    Addr cursor = begin;
    bool prev_free = false;
    while (cursor < begin + bytes) {
      REQUIRE(ci < chunks.size());
      const ChunkRec& c = chunks[ci++];
      REQUIRE(c.addr == cursor);
      REQUIRE(c.size > 0);
      REQUIRE(c.size % 256 == 0);
      // No two adjacent free chunks in one (BFC) region: frees coalesce at once.
      REQUIRE_FALSE((prev_free && !c.used));
      prev_free = !c.used;
      cursor += c.size;
      if (c.used) {
        used_bytes += c.size;
        auto it = live.find(c.addr);
        REQUIRE(it != live.end());  // every used chunk is one we hold ...
        REQUIRE(it->second == c.size);
      } else {
        ++free_count;
        largest_free = std::max(largest_free, c.size);
      }
    }
    REQUIRE(cursor == begin + bytes);
  }
  REQUIRE(ci == chunks.size());
  // ... and every allocation we hold is a used chunk (so live chunks never overlap: they tile).
  std::size_t used_chunks = 0;
  for (const ChunkRec& c : chunks) used_chunks += c.used;
  REQUIRE(used_chunks == live.size());
  REQUIRE(pool.live_count() == live.size());
  REQUIRE(pool.free_chunk_count() == free_count);

  // Stats equal recomputation from the chunk map.
  const auto& s = pool.stats();
  REQUIRE(s.bytes_in_use == used_bytes);
  REQUIRE(s.pool_bytes == region_bytes);
  REQUIRE(s.pool_bytes == sub.bytes_held());
  REQUIRE(s.pool_bytes <= pool.options().memory_limit);
  REQUIRE(s.peak_bytes_in_use >= s.bytes_in_use);
  REQUIRE(s.peak_pool_bytes >= s.pool_bytes);
  REQUIRE(s.largest_free_block_bytes == largest_free);
  REQUIRE(pool.largest_free_block() == largest_free);
}

// Brute-force best fit from the chunk map: the smallest (size, address) free chunk that holds
// `rounded` after alignment padding; returns the address the allocation must get, or none.
std::optional<Addr> brute_force_fit(const BfcPool& pool, std::uint64_t rounded, std::uint64_t alignment) {
  std::optional<std::pair<std::uint64_t, Addr>> best;
  Addr result = 0;
  for (const ChunkRec& c : chunk_map(pool)) {
    if (c.used) continue;
    const Addr aligned = (c.addr + alignment - 1) / alignment * alignment;
    const std::uint64_t pad = BfcPool::rounded_bytes(aligned - c.addr);
    if (c.size < rounded + pad) continue;
    if (!best || std::make_pair(c.size, c.addr) < *best) {
      best = std::make_pair(c.size, c.addr);
      result = c.addr + pad;
    }
  }
  if (!best) return std::nullopt;
  return result;
}

struct RunResult {
  std::vector<std::optional<Addr>> placements;
  std::uint64_t ooms = 0, gc_frees = 0, regions = 0;
};

RunResult run_random(std::uint64_t seed, const BfcOptions& o, int ops, bool check) {
  auto chooser = allocsim::make_seeded_chooser(seed);
  FakeSubAllocator sub(o);
  BfcPool pool(o, sub);
  std::map<Addr, std::uint64_t> live;
  std::vector<Addr> live_list;
  RunResult out;
  for (int i = 0; i < ops; ++i) {
    const bool do_alloc = live_list.empty() || chooser->pick(100) < 55;
    if (do_alloc) {
      std::uint64_t bytes;
      switch (chooser->pick(4)) {
        case 0: bytes = 1 + chooser->pick(4096); break;                 // small
        case 1: bytes = 1 + chooser->pick(4 * MiB); break;              // medium
        case 2: bytes = (1 + chooser->pick(64)) * MiB / 2; break;       // large, 256-multiples
        default: bytes = chooser->pick(100) == 0 ? 0 : 1 + chooser->pick(24 * MiB); break;
      }
      std::uint64_t alignment = 256;
      if (chooser->pick(8) == 0) alignment = std::uint64_t{256} << chooser->pick(11);  // up to 256 KiB
      const std::uint64_t rounded = BfcPool::rounded_bytes(bytes);
      std::optional<Addr> expected;
      if (check && bytes > 0) expected = brute_force_fit(pool, rounded, alignment);
      const std::uint64_t pool_before = pool.stats().pool_bytes;
      const std::optional<Addr> a = pool.allocate(bytes, alignment);
      out.placements.push_back(a);
      if (bytes == 0) {
        REQUIRE_FALSE(a.has_value());
      } else if (a) {
        REQUIRE(*a % alignment == 0);
        REQUIRE(pool.chunk_size(*a) >= rounded);
        // If a free chunk fitted before, BFC must have used the best one, without growing.
        if (check && expected) {
          REQUIRE(*a == *expected);
          REQUIRE(pool.stats().pool_bytes == pool_before);
        }
        live.emplace(*a, pool.chunk_size(*a));
        live_list.push_back(*a);
      } else {
        REQUIRE_FALSE(expected.has_value());  // OOM only when nothing fits
        ++out.ooms;
      }
    } else {
      const std::size_t k = chooser->pick(live_list.size());
      const Addr a = live_list[k];
      live_list[k] = live_list.back();
      live_list.pop_back();
      pool.deallocate(a);
      live.erase(a);
    }
    if (check) check_invariants(pool, sub, live);
  }
  out.gc_frees = sub.free_calls();
  out.regions = sub.alloc_calls();
  return out;
}

}  // namespace

TEST_CASE("random op sequences keep every BFC invariant", "[bfc][property]") {
  const std::uint64_t seed = GENERATE(1u, 2u, 3u, 4u, 5u);
  const bool growth = GENERATE(false, true);
  const bool gc = GENERATE(false, true);
  const bool coalesce = GENERATE(false, true);
  BfcOptions o;
  o.memory_limit = 96 * MiB + 12345;  // small enough for OOMs, not a multiple of 256
  o.allow_growth = growth;
  o.garbage_collection = gc;
  o.coalesce_regions = coalesce;
  if (seed == 5) o.fragmentation_fraction = 0.05;
  INFO("seed " << seed << " growth " << growth << " gc " << gc << " coalesce " << coalesce);
  const RunResult r = run_random(seed, o, 1500, /*check=*/true);
  CHECK(r.placements.size() > 500);
  if (growth) CHECK(r.regions > 1);
}

TEST_CASE("garbage collection really happens in the random runs", "[bfc][property]") {
  BfcOptions o;
  o.memory_limit = 96 * MiB;
  o.garbage_collection = true;
  std::uint64_t frees = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) frees += run_random(seed, o, 1500, false).gc_frees;
  CHECK(frees > 0);  // otherwise the property test above never exercised GC
}

TEST_CASE("same seed, same addresses", "[bfc][property]") {
  for (bool growth : {false, true}) {
    BfcOptions o;
    o.memory_limit = 96 * MiB;
    o.allow_growth = growth;
    const RunResult a = run_random(42, o, 3000, false);
    const RunResult b = run_random(42, o, 3000, false);
    CHECK(a.placements == b.placements);
    const RunResult c = run_random(43, o, 3000, false);
    CHECK(a.placements != c.placements);
  }
}
