// RegionSubAllocator: the BFC pool's SubAllocator on hardware.
//
// The pool model (pool/bfc_pool.h) asks a SubAllocator for regions. On hardware every region is
// carved out of ONE real device allocation made up front (hipMalloc), so a chunk's pool address
// is an offset and its device pointer is `device_base + addr`. The addresses themselves come from
// the simulator's FakeSubAllocator (same placement rule, same base), so the same inputs in the
// same order give the same addresses in the sim and on the GPU. The only difference: a region
// that would end past the real allocation is refused (the pool then backs off by x0.9 or fails,
// as TSL does when the device is out of memory).
#pragma once
#include <cstdint>
#include <optional>

#include "allocsim/pool/bfc_pool.h"
#include "allocsim/pool/fake_sub_allocator.h"

namespace allocsim::hw {

class RegionSubAllocator final : public SubAllocator {
 public:
  /// `capacity`: bytes of the real device allocation that pool addresses [0, capacity) map onto.
  RegionSubAllocator(const BfcOptions& options, std::uint64_t capacity)
      : fake_(options, 0), capacity_(capacity) {}

  std::optional<Addr> alloc(std::uint64_t alignment, std::uint64_t bytes) override;
  void free(Addr addr, std::uint64_t bytes) override { fake_.free(addr, bytes); }
  bool supports_coalescing() const override { return fake_.supports_coalescing(); }

  std::uint64_t capacity() const { return capacity_; }
  /// Highest pool address handed out so far (end of the last region): the bytes of the real
  /// allocation actually touched.
  std::uint64_t high_water() const { return high_water_; }
  std::uint64_t refusals() const { return refusals_; }

 private:
  FakeSubAllocator fake_;
  std::uint64_t capacity_;
  std::uint64_t high_water_ = 0;
  std::uint64_t refusals_ = 0;
};

}  // namespace allocsim::hw
