// Free policy `immediate`: upstream XLA's free under kComputeSynchronized. Release returns the
// chunk to the pool at once, except that a use on a stream other than compute holds it until the
// host learns that use completed.
//
// Contract: at release of a buffer allocated on compute, let H be the streams other than compute
//   that touched it.
//     - H empty: pool_free(chunk) runs on the host at release, before the host's next op. Nothing
//       orders the freed bytes after compute work still queued on them: the next allocation of
//       those bytes is safe only if it is used from compute (stream order) or its user waits on
//       compute (guard wait-compute / device-sync / private-pool).
//     - H not empty: the free runs on the callback thread, from a host callback ordered after
//       everything enqueued so far on every stream in H (then_execute_callback on the first, whose
//       callback stream also waits on an event recorded on each other one). Compute uses still
//       hold nothing. If the callback enqueue fails (param callback_enqueue_failure), the policy
//       counts a fallback, warns "immediate: callback enqueue failed (...); freed immediately" and
//       frees at once.
//   A buffer allocated for a non-compute stream is freed at once whatever touched it: the engine
//   treats such an allocation as its stream's own scratch (the autotuner's, interpreter.cpp),
//   which upstream hands back to the BFC allocator directly, so ordering it is its owner's job
//   (the MIOpen autotuner synchronizes its stream first; scenarios' autotune blocks do the same).
// Analogue, and the sources of the rule (openxla/xla):
//   - the rule itself: the comment on LocalDeviceState::kComputeSynchronized
//     (xla/pjrt/local_device_state.h) lets a buffer be freed once its last compute use is
//     enqueued and, for each use on a non-compute stream, either the host was notified that it
//     completed or the next compute op is guaranteed to start after it. This policy takes the
//     first branch, which is what the client does for the uses below;
//   - a use on another stream holds a reference until the host learns it completed. Classic
//     client: RecordUsage in xla/pjrt/pjrt_stream_executor_client.cc retains the buffer with
//     LocalDeviceState::ThenRelease(usage_stream, ...) (a host callback on the usage stream), and
//     PjRtStreamExecutorBuffer::Release makes a borrowed stream wait on every other-stream usage
//     event not yet complete and frees from a callback on it. Today's client: the H2D/D2H copies
//     in xla/pjrt/se_raw_buffer.cc (PjRtStreamExecutorRawBuffer::CopyRawHostToDeviceAndReturnEvent,
//     CopyRawDeviceToHostAndReturnEvent) keep the device memory alive with device_event.AndThen,
//     and the event becomes ready from a ThenExecuteCallback after the copy
//     (PjRtStreamExecutorClient::ThenRecordEvent). Either way the free happens on the callback
//     thread, as the frees seen on the `py_xla_callback` thread in JAX profiles on the H200;
//   - autotuner scratch: xla/service/gpu/autotuning/conv_algorithm_picker.cc,
//     PickBestAlgorithmNoCacheRocm, allocates operand, result and scratch buffers through a
//     ScratchAllocator (OwningDeviceMemory, returned to the allocator when it goes out of scope);
//     each profiled candidate's time is read from a GpuTimer (xla/stream_executor/gpu/gpu_timer.cc,
//     GetElapsedDuration), which waits for the stop event recorded after the candidate, so the host
//     has seen the stream finish before the scratch is freed.
// Where it differs: upstream takes the hold when the use is enqueued, this policy at release (it
//   sees only which streams touched the buffer), so the callback also waits for work enqueued on
//   those streams between the use and the release, and a use already known complete still costs
//   one callback.
// Cost: one pool free of host time for compute-only buffers (no pending bytes: in_use == live, the
//   baseline every other policy's peak memory is compared with); for a held buffer, one event
//   record per extra held stream plus a deferred free (~2.4 us) and pending bytes until the
//   callback runs.
// OOM: default (XLA AllocatorRetry, oom_default.cpp).
#include "allocsim/policies/registration.h"
#include "../policy_util.h"

namespace allocsim {
namespace {

class ImmediatePolicy final : public FreePolicy {
 public:
  static constexpr std::string_view kName = "immediate";
  std::string_view name() const override { return kName; }
  void on_release(Backend& b, const BufferInfo& buf, Plan& plan) override {
    const StreamId compute = b.compute_stream();
    std::vector<StreamId> held;
    if (buf.alloc_stream == compute)
      for (StreamId s : policy_util::use_streams(buf))
        if (s != compute) held.push_back(s);
    if (held.empty()) {
      plan.push_back(policy_util::free_now(buf.chunk, buf.id));
      return;
    }
    plan.push_back(Step::run([buf, held = std::move(held)](Backend& be, Plan&) {
      const StreamId first = held.front();
      for (std::size_t i = 1; i < held.size(); ++i) {
        const EventId e = be.create_event();
        be.record_event(e, held[i]);
        be.stream_wait(be.callback_stream(first), e);
        be.destroy_event(e);  // still waited on (CUDA semantics)
      }
      policy_util::free_after_stream(be, first, {{buf.chunk, buf.id}}, "immediate");
    }));
  }
};

ALLOCSIM_REGISTER_POLICY(ImmediatePolicy, {
    .order = 10,
    .description = "free at release; a use on another stream holds the chunk until a callback after it (XLA upstream, kComputeSynchronized)",
    .params = {policy_util::kCallbackEnqueueFailure, policy_util::kOomRetryTimeout},
});

}  // namespace
}  // namespace allocsim
