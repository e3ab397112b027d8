// Free policy `deferred-callback`: free in a host callback ordered after the buffer's last use.
//
// Contract: at release, Backend::then_execute_callback(last_use_stream, free): the callback stream
//   of the last-use stream waits on an event recorded there, then its host function frees the chunk
//   on the callback thread. The bytes return to the pool only after the last enqueued use finished
//   (plus callback latency). Only the last-use stream is ordered, as in PR #979 (which orders after
//   compute): a buffer whose earlier uses on *another* stream are still running is not covered.
//   A buffer no device op touched is deferred on compute. If the callback enqueue fails (injected
//   with param callback_enqueue_failure = p), the policy counts a fallback, warns
//   "deferred-callback: callback enqueue failed (...); freed immediately" and frees at once, i.e.
//   degrades to `immediate` for that buffer (and re-opens its race).
// Analogue: ROCm/xla PR #979 (closed unmerged): ThenExecuteCallback(compute, free).
// Cost: per release an event create/record/destroy, a stream wait and a callback enqueue of host
//   time (the H200's measured cost per free, next to the simulator's: results/hw/h200/validate.md);
//   the bytes stay pending until the device catches up, so peak in_use
//   grows with how far the host runs ahead (the compute semaphore's capacity).
// OOM: default (XLA AllocatorRetry: each deferred free wakes the waiting host).
#include "allocsim/policies/registration.h"
#include "../policy_util.h"

namespace allocsim {
namespace {

class DeferredCallbackPolicy final : public FreePolicy {
 public:
  static constexpr std::string_view kName = "deferred-callback";
  std::string_view name() const override { return kName; }
  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    plan.push_back(Step::run([buf](Backend& b, Plan&) {
      policy_util::free_after_stream(b, policy_util::deferred_free_stream(b, buf), {{buf.chunk, buf.id}},
                                     "deferred-callback");
    }));
  }
};

ALLOCSIM_REGISTER_POLICY(DeferredCallbackPolicy, {
    .order = 20,
    .description = "free in a host callback after the last-use stream (ROCm/xla PR #979); immediate on enqueue failure",
    .params = {policy_util::kCallbackEnqueueFailure, policy_util::kOomRetryTimeout},
});

}  // namespace
}  // namespace allocsim
