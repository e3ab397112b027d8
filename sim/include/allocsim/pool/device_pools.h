// DevicePools: the shared and the private pool of one device, and their lifetimes.
//
// Why it exists: both backends must agree on when a pool exists (created at its first
// allocation, so a run that never uses the private pool never holds its memory), when it dies
// (shutdown destroys it and drops its regions; it never comes back, so a later free into it is a
// lifetime finding) and on the pool-side totals (bytes in use, bytes held) that accounting reads.
#pragma once
#include <cstdint>
#include <memory>

#include "allocsim/pool/device_pool.h"

namespace allocsim {

class DevicePools {
 public:
  /// `bounded`: bound each pool's placement by DevicePool::device_bytes (the HIP backend, whose
  /// pools live in real allocations of that size); otherwise by the address span (simulator).
  DevicePools(const DeviceSpec& spec, bool bounded) : spec_(spec), bounded_(bounded) {}

  /// The pool, created at first use; nullptr for an unknown or destroyed pool.
  DevicePool* get(PoolId id);
  /// The pool if it exists and is alive; nullptr otherwise (creates nothing).
  DevicePool* find(PoolId id) { return DevicePool::known(id) ? slots_[id].pool.get() : nullptr; }
  const DevicePool* find(PoolId id) const { return DevicePool::known(id) ? slots_[id].pool.get() : nullptr; }
  /// Known and not destroyed (a pool not created yet is alive).
  bool alive(PoolId id) const { return DevicePool::known(id) && !slots_[id].destroyed; }
  bool destroyed(PoolId id) const { return DevicePool::known(id) && slots_[id].destroyed; }
  /// Shutdown: drops the pool and its regions for good. False if unknown or already destroyed.
  bool destroy(PoolId id);

  /// Chunk bytes in use, summed over the pools (BfcStats::bytes_in_use).
  std::uint64_t bytes_in_use() const;
  /// Bytes the pools hold from the device, summed (BfcStats::pool_bytes).
  std::uint64_t pool_bytes() const;

 private:
  struct Slot {
    std::unique_ptr<DevicePool> pool;
    bool destroyed = false;
  };
  DeviceSpec spec_;
  bool bounded_;
  Slot slots_[2];  // indexed by PoolId (kSharedPool, kPrivatePool)
};

}  // namespace allocsim
