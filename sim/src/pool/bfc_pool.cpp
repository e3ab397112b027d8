// BfcPool: the BFC algorithm (see the header essay). Written from the behaviour of
// tsl::BFCAllocator as documented in tests/data/tsl_bfc/README.md and checked against its
// recorded outputs; each step names the TSL function it mirrors so differences are easy to find.
#include "allocsim/pool/bfc_pool.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>

namespace allocsim {
namespace {

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kDefaultMaxInternalFragmentation = std::uint64_t{128} << 20;

std::uint64_t floor256(std::uint64_t v) { return v & ~(BfcPool::kMinAllocationSize - 1); }

std::uint64_t align_up(std::uint64_t v, std::uint64_t alignment) {
  return (v + alignment - 1) & ~(alignment - 1);
}

// TSL's LowEndAlignmentPadding: distance to the next aligned address, rounded to 256 so the
// prefix can be a chunk of its own.
std::uint64_t alignment_padding(Addr chunk_start, std::uint64_t alignment) {
  return BfcPool::rounded_bytes(align_up(chunk_start, alignment) - chunk_start);
}

// The region target doubles; saturate instead of wrapping (TSL would wrap to 0 and spin).
std::uint64_t doubled(std::uint64_t v) { return v > kMaxU64 / 2 ? kMaxU64 : v * 2; }

}  // namespace

BfcPool::BfcPool(const BfcOptions& options, SubAllocator& sub)
    : options_(options), sub_(sub), coalesce_regions_(sub.supports_coalescing()) {
  const std::uint64_t limit = options.memory_limit;
  const std::uint64_t first = options.allow_growth ? std::min<std::uint64_t>(limit, 2u << 20) : limit;
  curr_region_bytes_ = first > kMaxU64 - 255 ? floor256(first) : rounded_bytes(first);
  max_frag_ = options.fragmentation_fraction > 0
                  ? static_cast<std::uint64_t>(options.fragmentation_fraction * static_cast<double>(limit))
                  : kDefaultMaxInternalFragmentation;
  stats_.bytes_limit = limit;
}

BfcPool::~BfcPool() {
  for (const Region& r : regions_) sub_.free(r.begin, r.bytes);
}

int BfcPool::bin_for_size(std::uint64_t bytes) {
  const std::uint64_t units = std::max<std::uint64_t>(bytes, 256) >> 8;
  return std::min(63 - std::countl_zero(units), kNumTslBins - 1);
}

// ---- allocation (AllocateRawInternal)

std::optional<Addr> BfcPool::allocate(std::uint64_t bytes, std::uint64_t alignment) {
  if (bytes == 0) return std::nullopt;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)  // (has_single_bit needs popcnt: slow)
    throw std::invalid_argument("BfcPool::allocate: alignment must be a power of two, got " +
                                std::to_string(alignment));
  if (bytes > kMaxU64 - 255) return std::nullopt;  // cannot even be rounded: larger than any pool
  const std::uint64_t rounded = rounded_bytes(bytes);
  alignment = std::max(alignment, kMinAllocationSize);

  Handle h = find_and_take(rounded, alignment);
  if (h == kNone && extend(alignment, rounded)) h = find_and_take(rounded, alignment);
  if (h == kNone && collect_free_regions(rounded) && extend(alignment, rounded))
    h = find_and_take(rounded, alignment);
  if (h == kNone) return std::nullopt;
  return carve(h, rounded, alignment);
}

// FindTaggedChunkPtr: the first free chunk in (size, address) order that holds the request
// after its alignment padding. Removes it from the index.
BfcPool::Handle BfcPool::find_and_take(std::uint64_t rounded, std::uint64_t alignment) {
  if (alignment == kMinAllocationSize)
    return free_.take_first(rounded, [](const pool_detail::FreeEntry&) { return true; }, kNone);
  return free_.take_first(
      rounded,
      [&](const pool_detail::FreeEntry& e) { return e.size >= rounded + alignment_padding(e.addr, alignment); },
      kNone);
}

// AllocateChunkFromLowEnd + FinishChunkAllocation. `h` is free and out of the index.
Addr BfcPool::carve(Handle h, std::uint64_t rounded, std::uint64_t alignment) {
  if (alignment > kMinAllocationSize) {
    const std::uint64_t pad = alignment_padding(chunks_[h].addr, alignment);
    if (pad > 0) {
      const Handle aligned = split(h, pad);
      insert_free(h);  // the prefix stays free; its lower neighbour is in use (chunks coalesce)
      h = aligned;
    }
  }
  const std::uint64_t size = chunks_[h].size;
  if (size >= rounded * 2 || size - rounded >= max_frag_) insert_free(split(h, rounded));

  Chunk& c = chunks_[h];
  c.in_use = true;
  live_.insert(c.addr, h);
  ++stats_.num_allocs;
  stats_.bytes_in_use += c.size;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  stats_.largest_alloc_size = std::max(stats_.largest_alloc_size, c.size);
  return c.addr;
}

// SplitChunk: `h` keeps its first `first_bytes`; returns the new chunk after it (not indexed).
BfcPool::Handle BfcPool::split(Handle h, std::uint64_t first_bytes) {
  const Handle n = new_chunk();  // may reallocate chunks_: take references afterwards
  Chunk& c = chunks_[h];
  Chunk& tail = chunks_[n];
  tail.addr = c.addr + first_bytes;
  tail.size = c.size - first_bytes;
  tail.in_use = false;
  tail.prev = h;
  tail.next = c.next;
  c.size = first_bytes;
  if (c.next != kNone) chunks_[c.next].prev = n;
  c.next = n;
  return n;
}

// ---- deallocation (DeallocateRawInternal, TryToCoalesce)

void BfcPool::deallocate(Addr addr) {
  const Handle h = live_.erase(addr);
  if (h == kNone)
    throw std::invalid_argument("BfcPool::deallocate: address " + std::to_string(addr) +
                                " is not a live allocation");
  Chunk& c = chunks_[h];
  c.in_use = false;
  stats_.bytes_in_use -= c.size;
  insert_free(coalesce(h));
}

// Merges `h` (free, not indexed) with free neighbours; returns the surviving (lowest) chunk,
// still not indexed.
BfcPool::Handle BfcPool::coalesce(Handle h) {
  const Handle next = chunks_[h].next;
  if (next != kNone && !chunks_[next].in_use) {
    remove_free(next);
    Chunk& c = chunks_[h];
    const Chunk& n = chunks_[next];
    c.size += n.size;
    c.next = n.next;
    if (n.next != kNone) chunks_[n.next].prev = h;
    delete_chunk(next);
  }
  const Handle prev = chunks_[h].prev;
  if (prev != kNone && !chunks_[prev].in_use) {
    remove_free(prev);
    Chunk& p = chunks_[prev];
    const Chunk& c = chunks_[h];
    p.size += c.size;
    p.next = c.next;
    if (c.next != kNone) chunks_[c.next].prev = prev;
    delete_chunk(h);
    return prev;
  }
  return h;
}

BfcPool::Handle BfcPool::new_chunk() {
  if (unused_head_ != kNone) {
    const Handle h = unused_head_;
    unused_head_ = chunks_[h].next;
    return h;
  }
  if (chunks_.size() >= kNone) throw std::length_error("BfcPool: too many chunks");
  chunks_.emplace_back();
  return static_cast<Handle>(chunks_.size() - 1);
}

void BfcPool::delete_chunk(Handle h) {
  chunks_[h] = Chunk{};
  chunks_[h].next = unused_head_;
  unused_head_ = h;
}

// ---- regions (Extend, DeallocateFreeRegions)

bool BfcPool::extend(std::uint64_t alignment, std::uint64_t rounded) {
  const std::uint64_t available = floor256(options_.memory_limit - stats_.pool_bytes);
  if (rounded > available) return false;

  bool increased = false;
  while (rounded > curr_region_bytes_) {
    curr_region_bytes_ = doubled(curr_region_bytes_);
    increased = true;
  }
  std::uint64_t bytes = std::min(curr_region_bytes_, available);
  std::optional<Addr> mem = sub_.alloc(alignment, bytes);
  while (!mem) {  // back-pedal by x0.9, always making progress
    // TSL multiplies in float (kBackpedalFactor is a float 0.9); so do we, for the same sizes.
    std::uint64_t smaller = rounded_bytes(static_cast<std::uint64_t>(static_cast<float>(bytes) * 0.9f));
    if (smaller >= bytes) smaller = bytes - kMinAllocationSize;
    bytes = smaller;
    if (bytes < rounded) return false;
    mem = sub_.alloc(alignment, bytes);
  }
  if (!increased) curr_region_bytes_ = doubled(curr_region_bytes_);
  if (*mem % kMinAllocationSize != 0)
    throw std::logic_error("BfcPool: SubAllocator returned an address not aligned to 256 bytes");

  stats_.pool_bytes += bytes;
  stats_.peak_pool_bytes = std::max(stats_.peak_pool_bytes, stats_.pool_bytes);

  const Handle h = new_chunk();
  chunks_[h] = Chunk{*mem, bytes, kNone, kNone, false};

  // Regions stay sorted by address. With coalescing, memory that starts where a region ends
  // extends that region, and its chunk joins the end of the region's chunk list.
  auto pos = std::upper_bound(regions_.begin(), regions_.end(), *mem,
                              [](Addr a, const Region& r) { return a < r.end(); });
  if (coalesce_regions_ && pos != regions_.begin() && std::prev(pos)->end() == *mem) {
    Region& r = *std::prev(pos);
    r.bytes += bytes;
    Handle last = r.first;
    while (chunks_[last].next != kNone) last = chunks_[last].next;
    chunks_[last].next = h;
    chunks_[h].prev = last;
  } else {
    regions_.insert(pos, Region{*mem, bytes, h});
  }
  insert_free(coalesce(h));
  return true;
}

bool BfcPool::collect_free_regions(std::uint64_t rounded) {
  if (!options_.garbage_collection) return false;
  std::uint64_t free_bytes = 0;
  for (const Region& r : regions_) {
    const Chunk& c = chunks_[r.first];
    if (!c.in_use && c.next == kNone) free_bytes += r.bytes;  // one free chunk spans it
  }
  if (free_bytes == 0) return false;
  if (rounded > options_.memory_limit - stats_.pool_bytes + free_bytes) return false;

  std::size_t kept = 0;
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    const Region r = regions_[i];
    const Chunk& c = chunks_[r.first];
    if (!c.in_use && c.next == kNone) {
      remove_free(r.first);
      delete_chunk(r.first);
      sub_.free(r.begin, r.bytes);
      stats_.pool_bytes -= r.bytes;
    } else {
      regions_[kept++] = r;
    }
  }
  regions_.resize(kept);
  return true;
}

// ---- queries

std::uint64_t BfcPool::chunk_size(Addr addr) const {
  const Handle h = live_.find(addr);
  if (h == kNone)
    throw std::invalid_argument("BfcPool::chunk_size: address " + std::to_string(addr) +
                                " is not a live allocation");
  return chunks_[h].size;
}

bool BfcPool::is_live(Addr addr) const { return live_.find(addr) != kNone; }

const BfcStats& BfcPool::stats() const {
  stats_.largest_free_block_bytes = free_.largest();
  return stats_;
}

std::uint64_t BfcPool::largest_free_block() const { return free_.largest(); }

double BfcPool::fragmentation() const {
  const std::uint64_t available = stats_.pool_bytes - stats_.bytes_in_use;
  if (available == 0) return 0;
  return static_cast<double>(available - free_.largest()) / static_cast<double>(available);
}

void BfcPool::for_each_chunk(const std::function<void(Addr, std::uint64_t, bool)>& fn) const {
  for (const Region& r : regions_)
    for (Handle h = r.first; h != kNone; h = chunks_[h].next) fn(chunks_[h].addr, chunks_[h].size, chunks_[h].in_use);
}

void BfcPool::for_each_region(const std::function<void(Addr, std::uint64_t)>& fn) const {
  for (const Region& r : regions_) fn(r.begin, r.bytes);
}

void BfcPool::release_all() {
  std::vector<Addr> live;
  for (const Region& r : regions_)
    for (Handle h = r.first; h != kNone; h = chunks_[h].next)
      if (chunks_[h].in_use) live.push_back(chunks_[h].addr);
  for (Addr a : live) deallocate(a);
}

}  // namespace allocsim
