// Free policy `timestamp-frontier`: chunks stamped with a counter at release return to the pool
// once a polled frontier of completed events passes their stamp.
//
// Contract: each release takes the next stamp (counter += 1), parks the chunk with it, and records
//   an event tagged with the stamp on each stream that touched the buffer. Before every allocation
//   the host polls the tracked events in stamp order (FIFO), stopping at the first not yet done;
//   the frontier is the largest stamp all of whose events (and all older ones) were seen done.
//   Parked chunks with stamp <= frontier go back to the pool. A successful query orders the host
//   after the stream's work, so a returned chunk is safe for any stream. A buffer no device op
//   touched is freed at once.
//   Difference from TF: TF keeps the chunk in the BFC free lists and skips it for other streams'
//   allocations while freed_at_count > frontier; here it stays out of the pool (pending) until the
//   frontier passes, which is equivalent for safety and visible in the pending-bytes counter.
// Analogue: TensorFlow GPUKernelTracker (pending kernel counts + events, MaybeQueue / RecordTerminated)
//   with BFCAllocator freed_at_count / SetSafeFrontier.
// Cost: an event create + record per release (TF amortises one per N kernels); queries at each
//   allocation until the first not-done event; pending bytes until a later allocation observes the
//   frontier pass. The FIFO frontier is conservative: one slow stream holds back later stamps.
// OOM: while events are tracked, the host waits on the oldest tracked event, advances the frontier
//   and retries (one event per attempt, inside the allocator, so autotuner scratch gets it too);
//   with nothing tracked, the default (XLA AllocatorRetry; scratch fails fast).
#include <deque>

#include "allocsim/policies/registration.h"
#include "../policy_util.h"

namespace allocsim {
namespace {

class TimestampFrontierPolicy final : public FreePolicy {
 public:
  static constexpr std::string_view kName = "timestamp-frontier";
  std::string_view name() const override { return kName; }

  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    policy_util::park_after_events(buf, plan, [this](Backend&, const policy_util::Parked& chunk,
                                                     const std::vector<policy_util::StreamEvent>& events) {
      const std::uint64_t stamp = ++count_;
      for (const auto& se : events) tracked_.push_back({stamp, se.event});
      parked_.push_back({stamp, chunk});
    });
  }

  void before_allocate(Backend&, StreamId, std::uint64_t, Plan& plan) override {
    if (tracked_.empty()) return;
    plan.push_back(Step::run([this](Backend& b, Plan&) { advance(b); }));
  }

  OomDecision on_oom(Backend& b, StreamId stream, std::uint64_t bytes, bool scratch, int attempt,
                     TimeNs first_failure, Plan& plan) override {
    if (tracked_.empty()) return FreePolicy::on_oom(b, stream, bytes, scratch, attempt, first_failure, plan);
    const EventId oldest = tracked_.front().event;
    plan.push_back(Step::wait_event(oldest));
    plan.push_back(Step::run([this, oldest](Backend& b2, Plan&) {
      if (!tracked_.empty() && tracked_.front().event == oldest) {  // known done: the host waited on it
        b2.destroy_event(oldest);
        tracked_.pop_front();
      }
      advance(b2);
    }));
    return {true};
  }

  void on_shutdown(Backend&, Plan& plan) override {
    if (parked_.empty() && tracked_.empty()) return;
    plan.push_back(Step::wait_all());
    plan.push_back(Step::run([this](Backend& b, Plan&) {
      for (const Tracked& t : tracked_) b.destroy_event(t.event);
      tracked_.clear();
      frontier_ = count_;
      release_up_to_frontier(b);
    }));
  }

 private:
  struct Tracked {
    std::uint64_t stamp;
    EventId event;
  };
  struct Stamped {
    std::uint64_t stamp;
    policy_util::Parked parked;
  };

  /// Poll in stamp order up to the first event not done; move the frontier; return what it passed.
  void advance(Backend& b) {
    while (!tracked_.empty() && b.query_event(tracked_.front().event)) {
      b.destroy_event(tracked_.front().event);
      tracked_.pop_front();
    }
    frontier_ = tracked_.empty() ? count_ : tracked_.front().stamp - 1;
    release_up_to_frontier(b);
  }

  void release_up_to_frontier(Backend& b) {
    while (!parked_.empty() && parked_.front().stamp <= frontier_) {
      b.pool_free(parked_.front().parked.chunk, parked_.front().parked.buffer);
      parked_.pop_front();
    }
  }

  std::uint64_t count_ = 0;     // last stamp handed out
  std::uint64_t frontier_ = 0;  // every release with stamp <= frontier_ is known complete
  std::deque<Tracked> tracked_;  // events not yet seen done, stamp order
  std::deque<Stamped> parked_;   // chunks not yet returned, stamp order
};

ALLOCSIM_REGISTER_POLICY(TimestampFrontierPolicy, {
    .order = 70,
    .description = "free once a polled event frontier passes the release stamp (TF GPUKernelTracker + BFC freed_at_count)",
    .params = {policy_util::kOomRetryTimeout},
});

}  // namespace
}  // namespace allocsim
