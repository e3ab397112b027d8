// Guard `private-pool`: non-compute streams allocate from their own pool.
//
// Contract: pool_for(stream) is kPrivatePool for every stream but compute (backend stream 0, see
//   core/device.h), so autotuner scratch can never alias bytes a compute buffer held. Races between
//   two non-compute users of the private pool are not prevented (there is one autotune stream in
//   practice, which stream order covers).
// Analogue: giving the autotuner its own allocator (a separate BFC pool), one proposed fix.
// Cost: no host time; the private pool's own memory (DeviceSpec::private_pool_limit) on top of the
//   shared pool: memory the shared pool cannot reuse.
#include "allocsim/policies/registration.h"

namespace allocsim {
namespace {

constexpr StreamId kComputeStreamIndex = 0;  // core/device.h: backend stream 0 is compute

class PrivatePoolGuard final : public Guard {
 public:
  static constexpr std::string_view kName = "private-pool";
  std::string_view name() const override { return kName; }
  PoolId pool_for(StreamId stream) const override {
    return stream == kComputeStreamIndex ? kSharedPool : kPrivatePool;
  }
};

ALLOCSIM_REGISTER_GUARD(PrivatePoolGuard, {
    .order = 40,
    .description = "non-compute streams allocate from their own pool",
});

}  // namespace
}  // namespace allocsim
