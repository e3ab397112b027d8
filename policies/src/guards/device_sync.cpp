// Guard `device-sync`: synchronize all device activity before a non-compute stream allocates.
//
// Contract: before the allocation the host blocks until every stream and the callback thread are
//   idle (Step::wait_all), so all earlier device work on any bytes, and every deferred free already
//   enqueued, has finished. The exclusive lock of PR #980 (no other thread launches work meanwhile)
//   is implicit: the simulated host program is a single thread.
// Analogue: ROCm/xla PR #980: exclusive lock + SynchronizeAllActivity before MIOpen autotuning.
// Cost: a full device drain of host stall per guarded allocation (the host stops running ahead),
//   plus the sync wake-up latency.
#include "allocsim/policies/registration.h"

namespace allocsim {
namespace {

class DeviceSyncGuard final : public Guard {
 public:
  static constexpr std::string_view kName = "device-sync";
  std::string_view name() const override { return kName; }
  void before_allocate(Backend&, StreamId, Plan& plan) override { plan.push_back(Step::wait_all()); }
};

ALLOCSIM_REGISTER_GUARD(DeviceSyncGuard, {
    .order = 30,
    .description = "synchronize all device activity before the allocation (ROCm/xla PR #980)",
});

}  // namespace
}  // namespace allocsim
