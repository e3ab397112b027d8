// Free policy `event-poll`: PyTorch's caching allocator in a shared pool. A chunk is reusable by
// its own stream at once; uses on other streams (record_stream) park it behind events that a later
// allocation polls.
//
// Contract: at release, an event is recorded on the buffer's allocation stream and remembered with
//   its bytes (policy_util::ReleaseRecords). Let O be the streams other than the allocation stream
//   that touched the buffer (PyTorch's stream_uses, which record_stream fills).
//     - O empty: the chunk goes back to the pool at once.
//     - O not empty: one event is recorded on each stream in O and the chunk is parked (pending).
//       Before every allocation the host polls the outstanding events per stream (ascending
//       stream id) in FIFO order, stopping at a stream's first event not yet done (events on one
//       stream complete in order, as process_events assumes); the chunk goes back to the pool once
//       all of its events were seen done.
//   After every allocation, ReleaseRecords::order_after: a stream other than the releasing
//   buffer's allocation stream that gets its bytes polls the release event and, if it is not done,
//   waits on it on the device. So the allocation stream reuses at once and another stream only
//   after the allocation stream's work on the bytes.
// Analogue: PyTorch CUDACachingAllocator (c10/cuda/CUDACachingAllocator.cpp): free() calls
//   free_block at once when block->stream_uses is empty, else insert_events (one event per used
//   stream) and defers the block to process_events, called at the start of the next malloc;
//   record_stream on the allocation stream itself adds nothing.
// Where it differs: PyTorch's pools are per stream (BlockComparator orders by stream first, and
//   get_free_block takes only blocks of the allocating stream), so another stream never gets a
//   freed block until empty_cache hands the segment back to the driver. The pool here is shared:
//   another stream gets the bytes, ordered by a stream wait on the release event (stream-aware's
//   rule): the same safety, with less memory than per-stream pools would hold. Memory comes back
//   from a record_stream use at the next allocation *after* the GPU finished, as in PyTorch.
// Cost: an event create + record at every release (PyTorch has none for same-stream frees), one
//   more per stream in O, one query (~1.3 us) per outstanding stream queue at each allocation, and
//   at a cross-stream reuse one query and possibly a stream wait; pending bytes only for buffers
//   with uses on other streams.
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
    std::vector<StreamId> others;
    for (StreamId s : policy_util::use_streams(buf))
      if (s != buf.alloc_stream) others.push_back(s);
    plan.push_back(Step::run([this, buf, others = std::move(others)](Backend& b, Plan&) {
      if (buf.alloc_stream != kNoStream) records_.add(b, buf.chunk, buf.alloc_stream);
      if (others.empty()) {
        b.pool_free(buf.chunk, buf.id);
        return;
      }
      const std::uint64_t entry = next_entry_++;
      parked_[entry] = Entry{{buf.chunk, buf.id}, int(others.size())};
      for (StreamId s : others) {
        const EventId e = b.create_event();
        b.record_event(e, s);
        queues_[s].push_back({e, entry});
      }
    }));
  }

  void before_allocate(Backend&, StreamId, std::uint64_t, Plan& plan) override {
    if (queues_.empty()) return;
    plan.push_back(Step::run([this](Backend& b, Plan&) { process_events(b); }));
  }

  void after_allocate(Backend&, const BufferInfo& buf, Plan& plan) override {
    if (records_.empty()) return;
    plan.push_back(Step::run([this, buf](Backend& b, Plan&) { records_.order_after(b, buf); }));
  }

  OomDecision on_oom(Backend&, StreamId, std::uint64_t, bool, int attempt, TimeNs, Plan& plan) override {
    if (attempt > 0) return {false};
    plan.push_back(Step::wait_all());
    plan.push_back(Step::run([this](Backend& b, Plan&) { free_all(b); }));
    return {true};
  }

  void on_shutdown(Backend&, Plan& plan) override {
    if (!parked_.empty()) plan.push_back(Step::wait_all());
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

  /// After a device-wide sync (or at shutdown, with nothing parked): every event is done; free
  /// everything parked, oldest first, and forget every release.
  void free_all(Backend& b) {
    for (auto& [stream, q] : queues_)
      for (const Pending& p : q) b.destroy_event(p.event);
    queues_.clear();
    for (auto& [entry, e] : parked_) b.pool_free(e.parked.chunk, e.parked.buffer);
    parked_.clear();
    records_.clear(b);
  }

  std::uint64_t next_entry_ = 0;
  std::map<std::uint64_t, Entry> parked_;           // by release order
  std::map<StreamId, std::deque<Pending>> queues_;  // per stream, FIFO
  policy_util::ReleaseRecords records_;             // releases on their allocation stream
};

ALLOCSIM_REGISTER_POLICY(EventPollPolicy, {
    .order = 40,
    .description = "reuse on the same stream at once; record_stream uses park the chunk until polled events are done (PyTorch caching allocator)",
});

}  // namespace
}  // namespace allocsim
