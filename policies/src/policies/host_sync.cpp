// Free policy `host-sync`: block the host until the buffer's streams drain, then free.
//
// Contract: at release the host synchronizes every stream that touched the buffer (ascending stream
//   id; the last-use stream when the mask is empty), then pool_free runs on the host. The bytes are
//   idle on the device when they return to the pool, so any later user on any stream is ordered
//   after every earlier use (stream drain -> host -> pool lock -> next allocation).
// Analogue: XLA's kSynchronous allocation model (free after BlockHostUntilDone).
// Cost: host stall of the whole queued work on those streams at every release (the host can no
//   longer run ahead, so the compute semaphore never fills); pending bytes only while blocked.
// OOM: default (XLA AllocatorRetry).
#include "allocsim/policies/registration.h"
#include "../policy_util.h"

namespace allocsim {
namespace {

class HostSyncPolicy final : public FreePolicy {
 public:
  static constexpr std::string_view kName = "host-sync";
  std::string_view name() const override { return kName; }
  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    for (StreamId s : policy_util::use_streams(buf)) plan.push_back(Step::wait_stream(s));
    plan.push_back(policy_util::free_now(buf.chunk, buf.id));
  }
};

ALLOCSIM_REGISTER_POLICY(HostSyncPolicy, {
    .order = 30,
    .description = "block the host until the buffer's streams drain, then free (XLA kSynchronous)",
    .params = {policy_util::kOomRetryTimeout},
});

}  // namespace
}  // namespace allocsim
