// Default OOM behaviour shared by the XLA-style policies: tsl::AllocatorRetry. The host waits for
// any free to the pool (each free wakes it, as NotifyDealloc does) and retries, for up to
// `oom_retry_timeout_ns` (10 s, XLA's default) from the first failure. Autotuner scratch fails
// fast: MIOpen's scratch allocation does not retry.
#include "policy_util.h"

namespace allocsim {

OomDecision FreePolicy::on_oom(Backend& b, StreamId stream, std::uint64_t bytes, bool scratch, int attempt,
                               TimeNs first_failure, Plan& plan) {
  (void)stream, (void)bytes, (void)attempt;
  if (scratch) return {false};
  const TimeNs timeout = TimeNs(policy_util::kOomRetryTimeout.read(b.params()));
  const TimeNs deadline = first_failure + timeout;
  if (b.now() >= deadline) return {false};
  plan.push_back(Step::wait_pool_free(kSharedPool, deadline));
  return {true};
}

}  // namespace allocsim
