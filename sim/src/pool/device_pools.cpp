// DevicePools: lazy creation, destruction and totals of a device's pools (see the header).
#include "allocsim/pool/device_pools.h"

namespace allocsim {

DevicePool* DevicePools::get(PoolId id) {
  if (!alive(id)) return nullptr;
  Slot& s = slots_[id];
  if (!s.pool) {
    const std::optional<std::uint64_t> bound =
        bounded_ ? std::optional(DevicePool::device_bytes(DevicePool::options(id, spec_))) : std::nullopt;
    s.pool = std::make_unique<DevicePool>(id, spec_, bound);
  }
  return s.pool.get();
}

bool DevicePools::destroy(PoolId id) {
  if (!alive(id)) return false;
  slots_[id].destroyed = true;
  slots_[id].pool.reset();
  return true;
}

std::uint64_t DevicePools::bytes_in_use() const {
  std::uint64_t n = 0;
  for (const Slot& s : slots_)
    if (s.pool) n += s.pool->bfc().stats().bytes_in_use;
  return n;
}

std::uint64_t DevicePools::pool_bytes() const {
  std::uint64_t n = 0;
  for (const Slot& s : slots_)
    if (s.pool) n += s.pool->bfc().stats().pool_bytes;
  return n;
}

}  // namespace allocsim
