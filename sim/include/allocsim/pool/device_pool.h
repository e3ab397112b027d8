// DevicePool: one BFC pool of a device, placed the same way on both backends.
//
// Why it exists: the simulator and the HIP backend must give every chunk the same address for
// the same program and the same order of pool calls, so that their peaks and their address reuse
// (what makes races) are directly comparable. So everything that decides an address lives here,
// once: where each pool's address space starts, the BFC options a pool takes from the
// DeviceSpec, and the placement of regions (FakeSubAllocator, the rule the oracle traces check).
// The only hardware addition is a bound: on the GPU the addresses [base(), base() + device_bytes)
// map onto one real device allocation, and a region past its end is refused as a failed
// hipMalloc would be. While everything fits, the simulator's and the hardware's pools agree.
#pragma once
#include <cstdint>
#include <optional>

#include "allocsim/core/scenario.h"
#include "allocsim/core/types.h"
#include "allocsim/pool/bfc_pool.h"
#include "allocsim/pool/fake_sub_allocator.h"

namespace allocsim {

class DevicePool {
 public:
  /// The pool ids a device has (core/types.h).
  static bool known(PoolId id) { return id == kSharedPool || id == kPrivatePool; }
  /// Each pool places its regions inside its own [base(id), base(id) + kAddressSpan) and never
  /// past it, so the pools' addresses never overlap: the race detector compares raw addresses.
  /// The shared pool starts at 0, the private one at 2^48, far above any memory_limit.
  static constexpr std::uint64_t kAddressSpan = std::uint64_t(1) << 48;
  static Addr base(PoolId id) { return Addr(id) * kAddressSpan; }
  /// Pool `id`'s BFC options: the shared pool takes memory_limit, the private pool (guard
  /// private-pool's) private_pool_limit; growth, collection and splitting are the device's.
  static BfcOptions options(PoolId id, const DeviceSpec& spec);
  /// Bytes of real memory the HIP backend allocates behind a pool with these options: the
  /// regions never hold more than the limit, each may start up to 2 MiB past the previous one's
  /// end, and garbage collection followed by growth places new regions past the collected ones
  /// (addresses are never reused). Twice the limit plus 64 MiB covers one collect-and-regrow
  /// cycle; past it the bound refuses regions that the simulator would place.
  static std::uint64_t device_bytes(const BfcOptions& options);

  /// `device_bytes`: bound the placement to [base(id), base(id) + *device_bytes) (hardware);
  /// nullopt: only by the pool's address span (simulator).
  DevicePool(PoolId id, const DeviceSpec& spec, std::optional<std::uint64_t> device_bytes = std::nullopt);
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  BfcPool& bfc() { return bfc_; }
  const BfcPool& bfc() const { return bfc_; }
  Addr base() const { return placement_.base(); }
  /// Regions the bound refused: non-zero means this run's placement left the oracle's, which
  /// has no bound (hardware: past the device allocation; simulator: past the address span).
  std::uint64_t bound_refusals() const { return placement_.refusals(); }

 private:
  FakeSubAllocator placement_;  // declared first: must outlive bfc_, which returns its regions to it
  BfcPool bfc_;
};

}  // namespace allocsim
