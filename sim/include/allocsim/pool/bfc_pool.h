// (placeholder API, to be replaced by the BFC helper with the full model + header essay)
#pragma once
#include <cstdint>
#include <functional>
#include <optional>

#include "allocsim/core/types.h"

namespace allocsim {

struct BfcOptions {
  std::uint64_t memory_limit = std::uint64_t(16) << 30;
  bool allow_growth = true;
  bool garbage_collection = false;
  double fragmentation_fraction = 0;  // 0: max_internal_fragmentation_bytes = 128 MiB
  bool coalesce_regions = false;      // sub-allocator supports coalescing regions
};

/// Decides where regions live (fake addresses in the sim, one real device allocation in hw/).
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  virtual std::optional<Addr> alloc(std::uint64_t alignment, std::uint64_t bytes) = 0;
  virtual void free(Addr addr, std::uint64_t bytes) = 0;
  virtual bool supports_coalescing() const = 0;
};

struct BfcStats {
  std::uint64_t bytes_in_use = 0, peak_bytes_in_use = 0;
  std::uint64_t pool_bytes = 0, peak_pool_bytes = 0;
  std::uint64_t num_allocs = 0, largest_alloc_size = 0, bytes_limit = 0;
};

class BfcPool {
 public:
  BfcPool(const BfcOptions& options, SubAllocator& sub);
  /// Address of a chunk of >= bytes (rounded to 256), or nullopt on OOM and for 0 bytes.
  std::optional<Addr> allocate(std::uint64_t bytes, std::uint64_t alignment = 256);
  /// Return a live chunk. Precondition: `addr` came from allocate() and is live.
  void deallocate(Addr addr);
  /// BFC chunk size of a live allocation (AllocatedSize).
  std::uint64_t chunk_size(Addr addr) const;
  bool is_live(Addr addr) const;
  const BfcStats& stats() const;
  std::uint64_t largest_free_block() const;
  /// (pool - in_use - largest_free) / (pool - in_use); 0 when nothing is free.
  double fragmentation() const;
  void for_each_chunk(const std::function<void(Addr, std::uint64_t, bool in_use)>& fn) const;
};

}  // namespace allocsim
