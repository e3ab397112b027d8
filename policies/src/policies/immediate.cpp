// Free policy `immediate`: release returns the chunk to the pool at once.
//
// Contract: pool_free(chunk) runs on the host at release, before the host's next op. Nothing orders
//   the freed bytes after device work still queued on them: the next allocation of those bytes is
//   safe only if it is used from the same stream (stream order) or its user waits on compute
//   (guard wait-compute / device-sync / private-pool). With guard `none`, a non-compute stream
//   reusing the bytes races with queued compute work.
// Analogue: XLA upstream ~AllocatedRawSEDeviceMemory under kComputeSynchronized (a buffer may be
//   freed once its last compute use is *enqueued*).
// Cost: one pool free of host time; no pending bytes ever (in_use == live); no events, callbacks or
//   host stalls. The baseline every other policy's peak memory is compared with.
// OOM: default (XLA AllocatorRetry, oom_default.cpp).
#include "allocsim/policies/registration.h"
#include "../policy_util.h"

namespace allocsim {
namespace {

class ImmediatePolicy final : public FreePolicy {
 public:
  static constexpr std::string_view kName = "immediate";
  std::string_view name() const override { return kName; }
  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    plan.push_back(policy_util::free_now(buf.chunk, buf.id));
  }
};

ALLOCSIM_REGISTER_POLICY(ImmediatePolicy, {
    .order = 10,
    .description = "return the chunk to the pool at release (XLA upstream, kComputeSynchronized)",
    .params = {policy_util::kOomRetryTimeout},
});

}  // namespace
}  // namespace allocsim
