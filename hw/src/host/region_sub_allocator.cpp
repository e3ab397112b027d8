// RegionSubAllocator: FakeSubAllocator's addresses, bounded by one real device allocation.
#include "allocsim/hw/region_sub_allocator.h"

#include <algorithm>

namespace allocsim::hw {

std::optional<Addr> RegionSubAllocator::alloc(std::uint64_t alignment, std::uint64_t bytes) {
  std::optional<Addr> addr = fake_.alloc(alignment, bytes);
  if (!addr) return std::nullopt;
  if (*addr > capacity_ || bytes > capacity_ - *addr) {
    fake_.free(*addr, bytes);  // the real allocation cannot back it: refuse, like a failed hipMalloc
    ++refusals_;
    return std::nullopt;
  }
  high_water_ = std::max(high_water_, *addr + bytes);
  return addr;
}

}  // namespace allocsim::hw
