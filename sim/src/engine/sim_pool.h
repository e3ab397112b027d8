// One simulated device pool: the BFC model over a bump sub-allocator that hands out fake
// addresses from `base`. The shared pool starts at 0; the private autotune pool at 2^48, so
// addresses of different pools never overlap (the race detector compares raw addresses).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include "allocsim/core/scenario.h"
#include "allocsim/pool/bfc_pool.h"

namespace allocsim {

/// Regions at increasing addresses; freeing the newest region rewinds the cursor (so garbage
/// collection followed by growth reuses addresses, as a device allocator usually would).
class BumpSubAllocator final : public SubAllocator {
 public:
  BumpSubAllocator(Addr base, std::uint64_t limit) : cursor_(base), end_(base + limit) {}
  std::optional<Addr> alloc(std::uint64_t alignment, std::uint64_t bytes) override {
    if (alignment < 256) alignment = 256;
    const Addr a = (cursor_ + alignment - 1) & ~(alignment - 1);
    if (a < cursor_ || bytes > end_ - a || a > end_) return std::nullopt;
    cursor_ = a + bytes;
    return a;
  }
  void free(Addr addr, std::uint64_t bytes) override {
    if (addr + bytes == cursor_) cursor_ = addr;
  }
  bool supports_coalescing() const override { return false; }

 private:
  Addr cursor_, end_;
};

class SimPool {
 public:
  SimPool(Addr base, std::uint64_t limit, const DeviceSpec& spec)
      : sub_(base, limit + (std::uint64_t(1) << 30)), pool_(options(limit, spec), sub_) {}
  BfcPool& bfc() { return pool_; }
  const BfcPool& bfc() const { return pool_; }

 private:
  static BfcOptions options(std::uint64_t limit, const DeviceSpec& spec) {
    BfcOptions o;
    o.memory_limit = limit;
    o.allow_growth = spec.allow_growth;
    o.garbage_collection = spec.garbage_collection;
    o.fragmentation_fraction = spec.fragmentation_fraction;
    return o;
  }
  BumpSubAllocator sub_;  // declared first: must outlive pool_
  BfcPool pool_;
};

}  // namespace allocsim
