// The BFC pool model: address-exact with tsl::BFCAllocator (openxla/xla, 2026-08), and fast.
//
// Why it exists: every policy runs over the same pool the real XLA GPU client uses, so a policy's
// peak memory and its address reuse (the thing that makes races) are the real allocator's. The
// same class runs in the simulator (fake addresses) and in the HIP backend (offsets inside one
// real device allocation); same inputs in the same order give the same addresses in both.
//
// The model, top down (docs/design.md section 5, tests/data/tsl_bfc/README.md):
//
// Regions. Memory comes from a SubAllocator in regions. With allow_growth the first region
//   targets 2 MiB (or the rounded limit, if smaller). An allocation that fits no free chunk
//   "extends" the pool: if the request is larger than the target, the target doubles until it
//   fits and is NOT doubled after that Extend; otherwise it doubles after every Extend. The
//   region is min(target, floor256(limit - pool_bytes)); a request larger than that fails
//   without touching anything. Without allow_growth the whole limit is taken at the first
//   allocation. If the SubAllocator refuses, the size backs off by x0.9 until it would no longer
//   hold the request. Regions are never merged unless the SubAllocator supports coalescing and
//   hands out adjacent memory (then the new memory extends the previous region).
//
// Chunks. Each region is covered, without gaps, by chunks in address order (a doubly linked
//   list). A chunk is entirely used or entirely free. Sizes are multiples of 256 B. Allocation
//   takes a free chunk and splits off the tail only if the chunk is at least twice the rounded
//   request or the waste would be >= max_internal_fragmentation (128 MiB, or
//   fragmentation_fraction x limit): otherwise the caller gets the whole chunk (a 3,000,000 B
//   request in a fresh 4 MiB region gets all 4 MiB). Alignment above 256 splits a free prefix
//   (padding rounded to 256) off the chosen chunk. A freed chunk merges at once with free
//   neighbours in its region, so no two free chunks are ever adjacent.
//
// Bins. TSL keeps free chunks in 21 bins (bin i holds sizes [256*2^i, 256*2^(i+1)), bin 20
//   everything >= 256 MiB), each ordered by (size, address), and searches from the request's bin
//   upwards for the first chunk that fits. Because bins are disjoint size ranges searched in
//   order, that is exactly "the smallest (size, address) free chunk that fits". This model keeps
//   that order with finer size classes (8 per power of two, a bitmap of non-empty classes and a
//   small sorted vector per class), which changes no placement and keeps each search and update
//   short. The 21 TSL bins survive only as bin_for_size() for reporting.
//
// Out of memory. After a normal attempt and an Extend both fail, garbage_collection (if on)
//   returns every completely free region to the SubAllocator (only if that could make room),
//   then Extend is tried once more. 0-byte requests return nullopt and change nothing.
//
// Cost: allocate and deallocate do O(1) hash work for the address -> chunk map, a bitmap scan and
// a binary search in one small class vector; no allocation happens once the pool is warm.
// Not thread safe (the engine is single threaded; the HIP backend serialises calls).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "allocsim/core/types.h"
#include "allocsim/pool/detail/addr_map.h"
#include "allocsim/pool/detail/free_chunk_index.h"

namespace allocsim {

struct BfcOptions {
  std::uint64_t memory_limit = std::uint64_t(16) << 30;
  bool allow_growth = true;
  bool garbage_collection = false;
  double fragmentation_fraction = 0;  // 0: max_internal_fragmentation_bytes = 128 MiB
  /// Whether the SubAllocator may merge adjacent regions. BfcPool itself asks
  /// SubAllocator::supports_coalescing() (as TSL does); FakeSubAllocator takes its answer from here.
  bool coalesce_regions = false;
};

/// Decides where regions live (fake addresses in the sim, one real device allocation in hw/).
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  /// A region of exactly `bytes`, aligned to `alignment` (and to 256 at least), or nullopt.
  virtual std::optional<Addr> alloc(std::uint64_t alignment, std::uint64_t bytes) = 0;
  /// Give back [addr, addr+bytes): one whole region, or (when coalescing) several adjacent ones.
  virtual void free(Addr addr, std::uint64_t bytes) = 0;
  virtual bool supports_coalescing() const = 0;
};

struct BfcStats {
  std::uint64_t bytes_in_use = 0, peak_bytes_in_use = 0;
  std::uint64_t pool_bytes = 0, peak_pool_bytes = 0;
  std::uint64_t num_allocs = 0, largest_alloc_size = 0, bytes_limit = 0;
  std::uint64_t largest_free_block_bytes = 0;  // filled in by stats()
};

class BfcPool {
 public:
  static constexpr std::uint64_t kMinAllocationSize = 256;
  static constexpr int kNumTslBins = 21;

  /// `sub` must outlive the pool. Regions are taken lazily, at the first allocation.
  BfcPool(const BfcOptions& options, SubAllocator& sub);
  /// Returns every region to the SubAllocator.
  ~BfcPool();
  BfcPool(const BfcPool&) = delete;
  BfcPool& operator=(const BfcPool&) = delete;

  /// Address of a chunk of >= bytes (rounded to 256), or nullopt on OOM and for 0 bytes.
  /// `alignment` must be a power of two (std::invalid_argument otherwise); below 256 means 256.
  std::optional<Addr> allocate(std::uint64_t bytes, std::uint64_t alignment = 256);
  /// Return a live chunk. `addr` must be live (std::invalid_argument otherwise; nothing changes).
  void deallocate(Addr addr);
  /// BFC chunk size of a live allocation (AllocatedSize). std::invalid_argument if not live.
  std::uint64_t chunk_size(Addr addr) const;
  bool is_live(Addr addr) const;
  const BfcStats& stats() const;
  std::uint64_t largest_free_block() const;
  /// (pool - in_use - largest_free) / (pool - in_use); 0 when nothing is free.
  double fragmentation() const;
  /// Every chunk of every region in address order (sizes sum to pool_bytes).
  void for_each_chunk(const std::function<void(Addr, std::uint64_t, bool in_use)>& fn) const;

  // ---- additions beyond the placeholder API
  /// Every BFC region in address order (begin, bytes).
  void for_each_region(const std::function<void(Addr, std::uint64_t)>& fn) const;
  std::size_t region_count() const { return regions_.size(); }
  /// Target size of the next Extend (TSL's curr_region_allocation_bytes_).
  std::uint64_t next_region_bytes() const { return curr_region_bytes_; }
  std::size_t live_count() const { return live_.size(); }
  std::size_t free_chunk_count() const { return free_.size(); }
  /// Chunks split off when the waste would reach this many bytes (128 MiB by default).
  std::uint64_t max_internal_fragmentation_bytes() const { return max_frag_; }
  const BfcOptions& options() const { return options_; }
  /// Free every live allocation (in address order). The pool keeps its regions.
  void release_all();
  /// TSL's 21 bins: bin of a chunk size, for reports that speak in TSL's terms.
  static int bin_for_size(std::uint64_t bytes);
  static std::uint64_t rounded_bytes(std::uint64_t bytes) {
    return (bytes + kMinAllocationSize - 1) & ~(kMinAllocationSize - 1);
  }

 private:
  using Handle = std::uint32_t;
  static constexpr Handle kNone = pool_detail::kNoHandle;

  struct Chunk {
    Addr addr = 0;
    std::uint64_t size = 0;
    Handle prev = kNone, next = kNone;
    bool in_use = false;
  };
  struct Region {
    Addr begin = 0;
    std::uint64_t bytes = 0;
    Handle first = kNone;  // the chunk at `begin`; merges keep the lower chunk, so it never changes
    Addr end() const { return begin + bytes; }
  };

  Handle find_and_take(std::uint64_t rounded, std::uint64_t alignment);
  Addr carve(Handle h, std::uint64_t rounded, std::uint64_t alignment);
  bool extend(std::uint64_t alignment, std::uint64_t rounded);
  bool collect_free_regions(std::uint64_t rounded);
  Handle split(Handle h, std::uint64_t first_bytes);
  Handle coalesce(Handle h);
  Handle new_chunk();
  void delete_chunk(Handle h);
  void insert_free(Handle h) { free_.insert(chunks_[h].size, chunks_[h].addr, h); }
  void remove_free(Handle h) { free_.erase(chunks_[h].size, chunks_[h].addr); }

  BfcOptions options_;
  SubAllocator& sub_;
  bool coalesce_regions_;
  std::uint64_t max_frag_;
  std::uint64_t curr_region_bytes_;
  mutable BfcStats stats_;
  std::vector<Chunk> chunks_;
  Handle unused_head_ = kNone;  // recycled chunk records, linked through `next`
  std::vector<Region> regions_;  // sorted by address
  pool_detail::FreeChunkIndex free_;
  pool_detail::AddrMap live_;  // address of a live chunk -> its handle
};

}  // namespace allocsim
