// DevicePool: a BFC pool over the shared placement rule (see the header).
#include "allocsim/pool/device_pool.h"

#include <algorithm>

namespace allocsim {

BfcOptions DevicePool::options(PoolId id, const DeviceSpec& spec) {
  BfcOptions o;
  o.memory_limit = id == kPrivatePool ? spec.private_pool_limit : spec.memory_limit;
  o.allow_growth = spec.allow_growth;
  o.garbage_collection = spec.garbage_collection;
  o.fragmentation_fraction = spec.fragmentation_fraction;
  return o;
}

std::uint64_t DevicePool::device_bytes(const BfcOptions& options) {
  constexpr std::uint64_t kAlign = FakeSubAllocator::kRegionAlignment;
  const std::uint64_t limit = (options.memory_limit + kAlign - 1) / kAlign * kAlign;
  return 2 * limit + (std::uint64_t(64) << 20);
}

DevicePool::DevicePool(PoolId id, const DeviceSpec& spec, std::optional<std::uint64_t> device_bytes)
    : placement_(options(id, spec), base(id)), bfc_(options(id, spec), placement_) {
  placement_.set_address_bound(base(id) + std::min(device_bytes.value_or(kAddressSpan), kAddressSpan));
}

}  // namespace allocsim
