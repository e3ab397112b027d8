// Guard `wait-compute`: the allocating stream waits on an event recorded on compute at allocation.
//
// Contract: after a non-compute stream's allocation, an event is recorded on compute and the
//   allocating stream waits on it, so its later ops start only after everything enqueued on compute
//   so far, including every use of the bytes by an earlier owner (under kComputeSynchronized all of
//   a buffer's uses are on compute or ordered before compute work). The host never blocks.
// Analogue: XLA's WaitForAllocation / the kComputeSynchronized contract for non-compute streams.
// Cost: an event create + record + stream wait + destroy of host time (~0.5 us); the stream's work
//   is delayed on the device until compute catches up to the allocation point.
#include "allocsim/policies/registration.h"

namespace allocsim {
namespace {

class WaitComputeGuard final : public Guard {
 public:
  static constexpr std::string_view kName = "wait-compute";
  std::string_view name() const override { return kName; }
  void after_allocate(Backend&, const BufferInfo& buf, Plan& plan) override {
    plan.push_back(Step::run([stream = buf.alloc_stream](Backend& b, Plan&) {
      if (stream == kNoStream || stream == b.compute_stream()) return;  // compute is ordered by itself
      const EventId e = b.create_event();
      b.record_event(e, b.compute_stream());
      b.stream_wait(stream, e);
      b.destroy_event(e);  // still waited on (CUDA semantics)
    }));
  }
};

ALLOCSIM_REGISTER_GUARD(WaitComputeGuard, {
    .order = 20,
    .description = "stream waits on an event recorded on compute at allocation (XLA WaitForAllocation)",
});

}  // namespace
}  // namespace allocsim
