// Free policy `stream-aware`: free into the pool now; a different stream that gets the bytes waits
// on the event recorded at their release.
//
// Contract: at release, an event is recorded on every stream that touched the buffer and on its
//   allocation stream, each remembered with the chunk's (pool, byte range); then the chunk goes
//   back to the pool at once. After each allocation, for every remembered release overlapping the
//   new chunk:
//     - same stream as the new allocation's stream: nothing to do (stream order already puts the
//       new user after the old use); the bytes are reused at once;
//     - another stream: the host polls the event (query_event); if done, the record is dropped
//       (the host is now ordered after it); otherwise the allocating stream waits on the event,
//       a cross-stream dependency, so other streams effectively get the memory only after the
//       event completes.
//   A record wholly covered by the new chunk is then dropped: its obligation passes to the new
//   buffer, whose own release records an event on its allocation stream (after the wait, in stream
//   order). Partly covered records stay for the rest of their range.
//   The host never blocks: the dependency lives on the device. (The guard still runs afterwards;
//   `none` is enough for this policy to be race-free.)
// Analogue: RMM's stream-ordered pool_memory_resource / CUDA stream-ordered allocator
//   (cudaFreeAsync + cudaMallocAsync with event dependencies), PyTorch's per-stream pools.
// Cost: an event create + record per touched stream at release; at a cross-stream reuse one query
//   (~1.3 us) and, if the old work is still queued, a stream wait (~0.16 us), which may delay the
//   new user on the device. No pending bytes ever: in_use == live, the same peak as `immediate`.
// OOM: default (XLA AllocatorRetry).
#include <algorithm>
#include <map>

#include "allocsim/policies/registration.h"
#include "../policy_util.h"

namespace allocsim {
namespace {

class StreamAwarePolicy final : public FreePolicy {
 public:
  static constexpr std::string_view kName = "stream-aware";
  std::string_view name() const override { return kName; }

  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    std::vector<StreamId> streams = policy_util::use_streams(buf);
    if (buf.alloc_stream != kNoStream && std::find(streams.begin(), streams.end(), buf.alloc_stream) == streams.end())
      streams.push_back(buf.alloc_stream);
    plan.push_back(Step::run([this, buf, streams](Backend& b, Plan&) {
      for (StreamId s : streams) {
        const EventId e = b.create_event();
        b.record_event(e, s);
        max_bytes_[buf.chunk.pool] = std::max(max_bytes_[buf.chunk.pool], buf.chunk.bytes);
        records_.emplace(Key{buf.chunk.pool, buf.chunk.addr}, Record{buf.chunk.bytes, s, e});
      }
      b.pool_free(buf.chunk, buf.id);
    }));
  }

  void after_allocate(Backend&, const BufferInfo& buf, Plan& plan) override {
    if (records_.empty()) return;
    plan.push_back(Step::run([this, buf](Backend& b, Plan&) { order_after_releases(b, buf); }));
  }

  void on_shutdown(Backend&, Plan& plan) override {
    plan.push_back(Step::run([this](Backend& b, Plan&) {
      for (auto& [key, r] : records_) b.destroy_event(r.event);
      records_.clear();
    }));
  }

 private:
  using Key = std::pair<PoolId, Addr>;  // (pool, range begin)
  struct Record {
    std::uint64_t bytes;
    StreamId stream;  // where the event was recorded
    EventId event;
  };

  void order_after_releases(Backend& b, const BufferInfo& buf) {
    const Chunk& c = buf.chunk;
    const AddrRange mine{c.addr, c.bytes};
    const std::uint64_t reach = max_bytes_[c.pool];
    auto it = records_.lower_bound(Key{c.pool, c.addr > reach ? c.addr - reach : 0});
    while (it != records_.end() && it->first.first == c.pool && it->first.second < mine.end()) {
      const AddrRange theirs{it->first.second, it->second.bytes};
      if (!theirs.overlaps(mine)) {
        ++it;
        continue;
      }
      bool drop = theirs.begin >= mine.begin && theirs.end() <= mine.end();  // obligation passes on
      if (it->second.stream != buf.alloc_stream) {
        if (b.query_event(it->second.event))
          drop = true;  // known complete: the host (and all it enqueues later) is ordered after it
        else
          b.stream_wait(buf.alloc_stream, it->second.event);
      }
      if (drop) {
        b.destroy_event(it->second.event);
        it = records_.erase(it);
      } else {
        ++it;
      }
    }
  }

  std::multimap<Key, Record> records_;     // releases not known complete, by (pool, address)
  std::map<PoolId, std::uint64_t> max_bytes_;  // largest remembered range per pool (bounds the search)
};

ALLOCSIM_REGISTER_POLICY(StreamAwarePolicy, {
    .order = 50,
    .description = "free now; another stream reusing the bytes waits on the release event (RMM stream-ordered pool)",
    .params = {policy_util::kOomRetryTimeout},
});

}  // namespace
}  // namespace allocsim
