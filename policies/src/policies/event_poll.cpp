// Free policy `event-poll`: park released chunks behind events; reclaim them when a later
// allocation polls the events done.
//
// Contract: at release, one event is recorded on each stream that touched the buffer and the chunk
//   is parked (pending). Before every allocation the host polls the outstanding events per stream
//   (ascending stream id) in FIFO order, stopping at a stream's first event not yet done (events on
//   one stream complete in order, as PyTorch's process_events assumes); a chunk goes back to the
//   pool once all of its events were seen done. A successful query orders the host after the
//   stream's work, so the freed bytes are safe for any stream. A buffer no device op touched is
//   freed at once. Memory comes back at the next allocation *after* the GPU finished, not when it
//   finished.
//   Unlike PyTorch, the pool is shared by all streams, so the allocation stream's own uses get an
//   event too (PyTorch skips it because its pools are per stream).
// Analogue: PyTorch CUDACachingAllocator record_stream + process_events.
// Cost: an event create + record per touched stream at release, one query (~1.3 us) per
//   outstanding stream queue at each allocation; pending bytes until the next allocation after the
//   device finished.
// OOM: PyTorch style: on the first failure the host synchronizes the device (wait_all), frees every
//   parked chunk, and retries once; a second failure is final. The sync-and-free happens inside
//   the allocator, so it applies to autotuner scratch too (which then fails without a further retry).
#include <deque>
#include <map>

#include "allocsim/policies/registration.h"
#include "../policy_util.h"

namespace allocsim {
namespace {

class EventPollPolicy final : public FreePolicy {
 public:
  static constexpr std::string_view kName = "event-poll";
  std::string_view name() const override { return kName; }

  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    policy_util::park_after_events(buf, plan, [this](Backend&, const policy_util::Parked& chunk,
                                                     const std::vector<policy_util::StreamEvent>& events) {
      const std::uint64_t entry = next_entry_++;
      parked_[entry] = Entry{chunk, int(events.size())};
      for (const auto& se : events) queues_[se.stream].push_back({se.event, entry});
    });
  }

  void before_allocate(Backend&, StreamId, std::uint64_t, Plan& plan) override {
    if (queues_.empty()) return;
    plan.push_back(Step::run([this](Backend& b, Plan&) { process_events(b); }));
  }

  OomDecision on_oom(Backend&, StreamId, std::uint64_t, bool, int attempt, TimeNs, Plan& plan) override {
    if (attempt > 0) return {false};
    plan.push_back(Step::wait_all());
    plan.push_back(Step::run([this](Backend& b, Plan&) { free_all(b); }));
    return {true};
  }

  void on_shutdown(Backend&, Plan& plan) override {
    if (parked_.empty()) return;
    plan.push_back(Step::wait_all());
    plan.push_back(Step::run([this](Backend& b, Plan&) { free_all(b); }));
  }

 private:
  struct Entry {
    policy_util::Parked parked;
    int outstanding = 0;  // events not yet seen done
  };
  struct Pending {
    EventId event;
    std::uint64_t entry;
  };

  void process_events(Backend& b) {
    for (auto it = queues_.begin(); it != queues_.end();) {
      std::deque<Pending>& q = it->second;
      while (!q.empty() && b.query_event(q.front().event)) {
        b.destroy_event(q.front().event);
        event_done(b, q.front().entry);
        q.pop_front();
      }
      it = q.empty() ? queues_.erase(it) : std::next(it);
    }
  }

  void event_done(Backend& b, std::uint64_t entry) {
    auto it = parked_.find(entry);
    if (--it->second.outstanding > 0) return;
    b.pool_free(it->second.parked.chunk, it->second.parked.buffer);
    parked_.erase(it);
  }

  /// After a device-wide sync: every event is done; free everything parked, oldest first.
  void free_all(Backend& b) {
    for (auto& [stream, q] : queues_)
      for (const Pending& p : q) b.destroy_event(p.event);
    queues_.clear();
    for (auto& [entry, e] : parked_) b.pool_free(e.parked.chunk, e.parked.buffer);
    parked_.clear();
  }

  std::uint64_t next_entry_ = 0;
  std::map<std::uint64_t, Entry> parked_;        // by release order
  std::map<StreamId, std::deque<Pending>> queues_;  // per stream, FIFO
};

ALLOCSIM_REGISTER_POLICY(EventPollPolicy, {
    .order = 40,
    .description = "record events at release; free when a later allocation polls them done (PyTorch record_stream)",
});

}  // namespace
}  // namespace allocsim
