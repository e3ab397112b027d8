// Free policy `timestamp-frontier`: TensorFlow's timestamped BFC allocator. A freed chunk goes back
// to the pool at once with a stamp; only an allocation that could run ahead of the work on it (one
// for another stream) is held to a polled frontier of completed stamps.
//
// Contract: each release takes the next stamp (counter += 1), records an event tagged with the
//   stamp on each stream that touched the buffer and on its allocation stream, remembers the
//   chunk's bytes with the stamp, and returns the chunk to the pool at once. Before every
//   allocation the host polls the tracked events in stamp order (FIFO), stopping at the first not
//   yet done; the frontier is the largest stamp all of whose events (and all older ones) were seen
//   done, and releases with stamp <= frontier are forgotten. After an allocation for stream S, for
//   every remembered release with stamp > frontier whose bytes overlap the new chunk, S waits on
//   that release's events still tracked on streams other than S (an event no longer tracked was
//   seen done by the host, which ordered itself after it). An allocation for a stream that did all
//   of the release's work therefore reuses its bytes at once.
// Analogue: TensorFlow: BFCAllocator (xla/tsl/framework/bfc_allocator.cc, timestamped_allocator)
//   stamps a freed chunk with freed_at_count and skips it for an allocation whose
//   AllocationAttributes carry freed_by_func while freed_at_count is past the safe frontier;
//   GPUKernelTracker (tensorflow/core/common_runtime/gpu/gpu_device.cc) moves the frontier as
//   queued kernels' events complete (SafeAllocFrontier). Only allocations whose users may run off
//   the compute stream pass freed_by_func (device copies in BaseGPUDevice, rendezvous copies,
//   collectives such as ring_reducer.cc); ordinary kernels' allocations reuse at once.
// Where it differs: TF skips a chunk past the frontier and takes another (or waits for the
//   frontier); here the pool has already placed the allocation, so the allocating stream waits on
//   the device for the release's events instead: the same safety, possibly other addresses. TF
//   counts compute kernels and records one event per N of them; here every release records an
//   event per touched stream. The FIFO frontier is conservative: one slow stream holds back later
//   stamps (so a reuse may wait on an event that is in fact done).
// Cost: event creates + records per release, queries at each allocation until the first not-done
//   event, and at a cross-stream reuse of bytes past the frontier a stream wait (~0.16 us) per
//   event, which may delay the new user on the device. No pending bytes: in_use == live.
// OOM: default (XLA AllocatorRetry; scratch fails fast): nothing is withheld from the pool.
#include <algorithm>
#include <deque>
#include <map>

#include "allocsim/policies/registration.h"
#include "../policy_util.h"

namespace allocsim {
namespace {

class TimestampFrontierPolicy final : public FreePolicy {
 public:
  static constexpr std::string_view kName = "timestamp-frontier";
  std::string_view name() const override { return kName; }

  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    std::vector<StreamId> streams = policy_util::use_streams(buf);
    if (buf.alloc_stream != kNoStream && std::find(streams.begin(), streams.end(), buf.alloc_stream) == streams.end())
      streams.push_back(buf.alloc_stream);
    plan.push_back(Step::run([this, buf, streams = std::move(streams)](Backend& b, Plan&) {
      const std::uint64_t stamp = ++count_;
      for (StreamId s : streams) {
        const EventId e = b.create_event();
        b.record_event(e, s);
        tracked_.push_back({stamp, s, e});
      }
      stamped_.emplace(stamp, buf.chunk);
      b.pool_free(buf.chunk, buf.id);
    }));
  }

  void before_allocate(Backend&, StreamId, std::uint64_t, Plan& plan) override {
    if (tracked_.empty()) return;
    plan.push_back(Step::run([this](Backend& b, Plan&) { advance(b); }));
  }

  void after_allocate(Backend&, const BufferInfo& buf, Plan& plan) override {
    if (stamped_.empty()) return;
    plan.push_back(Step::run([this, buf](Backend& b, Plan&) { hold_to_frontier(b, buf); }));
  }

  void on_shutdown(Backend&, Plan& plan) override {
    if (tracked_.empty() && stamped_.empty()) return;
    plan.push_back(Step::run([this](Backend& b, Plan&) {
      for (const Tracked& t : tracked_) b.destroy_event(t.event);
      tracked_.clear();
      stamped_.clear();
    }));
  }

 private:
  struct Tracked {
    std::uint64_t stamp;
    StreamId stream;
    EventId event;
  };

  /// Poll in stamp order up to the first event not done; move the frontier; forget what it passed.
  void advance(Backend& b) {
    while (!tracked_.empty() && b.query_event(tracked_.front().event)) {
      b.destroy_event(tracked_.front().event);
      tracked_.pop_front();
    }
    const std::uint64_t frontier = tracked_.empty() ? count_ : tracked_.front().stamp - 1;
    stamped_.erase(stamped_.begin(), stamped_.upper_bound(frontier));
  }

  /// `buf` got bytes of releases past the frontier: its stream waits for their other streams.
  /// Releases past the frontier are the ones the host ran ahead of (a few executions' worth), so
  /// a scan is enough.
  void hold_to_frontier(Backend& b, const BufferInfo& buf) {
    const AddrRange mine{buf.chunk.addr, buf.chunk.bytes};
    for (const auto& [stamp, chunk] : stamped_) {
      if (chunk.pool != buf.chunk.pool || !AddrRange{chunk.addr, chunk.bytes}.overlaps(mine)) continue;
      auto t = std::lower_bound(tracked_.begin(), tracked_.end(), stamp,
                                [](const Tracked& x, std::uint64_t s) { return x.stamp < s; });
      for (; t != tracked_.end() && t->stamp == stamp; ++t)
        if (t->stream != buf.alloc_stream) b.stream_wait(buf.alloc_stream, t->event);
    }
  }

  std::uint64_t count_ = 0;                   // last stamp handed out
  std::deque<Tracked> tracked_;               // events not yet seen done, stamp order
  std::map<std::uint64_t, Chunk> stamped_;    // releases past the frontier, by stamp
};

ALLOCSIM_REGISTER_POLICY(TimestampFrontierPolicy, {
    .order = 70,
    .description = "free with a stamp; another stream reusing the bytes waits until a polled frontier passes it (TF timestamped BFC)",
    .params = {policy_util::kOomRetryTimeout},
});

}  // namespace
}  // namespace allocsim
