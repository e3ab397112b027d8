// FakeSubAllocator: bump allocation of region addresses (see the header).
#include "allocsim/pool/fake_sub_allocator.h"

#include <algorithm>
#include <stdexcept>

namespace allocsim {

std::optional<Addr> FakeSubAllocator::alloc(std::uint64_t alignment, std::uint64_t bytes) {
  ++alloc_calls_;
  const std::uint64_t align = std::max(alignment, kRegionAlignment);
  const Addr start = (bump_ + align - 1) & ~(align - 1);
  const bool over_capacity = capacity_ && bytes > *capacity_ - std::min(*capacity_, bytes_held_);
  const bool past_bound = address_bound_ && (start > *address_bound_ || bytes > *address_bound_ - start);
  if (over_capacity || past_bound) {
    ++refusals_;
    return std::nullopt;
  }
  bump_ = start + bytes;
  held_.emplace(start, bytes);
  bytes_held_ += bytes;
  if (listener_) listener_(true, start, bytes);
  return start;
}

void FakeSubAllocator::free(Addr addr, std::uint64_t bytes) {
  ++free_calls_;
  auto it = held_.lower_bound(addr);
  if (it == held_.end() || it->first != addr)
    throw std::logic_error("FakeSubAllocator::free: not the start of a region it handed out");
  while (it != held_.end() && it->first < addr + bytes) {
    bytes_held_ -= it->second;
    it = held_.erase(it);
  }
  if (listener_) listener_(false, addr, bytes);
}

}  // namespace allocsim
