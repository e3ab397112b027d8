// Guard `device-sync`: synchronize all device activity before a non-compute stream allocates.
//
// Contract: before the allocation the host blocks until every stream and the callback thread are
//   idle (Step::wait_all), so all earlier device work on any bytes, and every deferred free already
//   enqueued, has finished. The exclusive lock of PR #980 (no other thread launches work meanwhile)
//   is implicit: the simulated host program is a single thread.
// Analogue: ROCm/xla PR #980: exclusive lock + SynchronizeAllActivity before MIOpen autotuning.
// Where it differs: Step::wait_all also waits for the callback thread to run every host callback
//   already handed to it. SynchronizeAllActivity waits for the device's streams only; XLA runs its
//   callbacks on a host thread of its own, which the device sync does not wait for. So here every
//   deferred free whose stream work is done has returned its bytes before the allocation, which
//   makes the deferred policies' pending bytes under this guard lower than PR #980 would give (by
//   at most the callbacks still queued on that thread at the sync).
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
