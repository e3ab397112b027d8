// A stand-in for the engine in race-detector tests: scripts observer calls at explicit times and
// plays them in timeline order, so tests do not depend on sim/engine. An op's start phase (acquire
// its enqueue edge and waited events, then reads) and end phase (writes, event releases, span) are
// separate calls; at equal times op ends come first, then host actions, then op starts, so a
// release always precedes the acquire it feeds and accesses arrive in nondecreasing time.
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "allocsim/core/observer.h"

namespace allocsim::test {

class SyntheticEngine {
 public:
  enum Phase { kOpEnd = 0, kHost = 1, kOpStart = 2 };
  struct Access {
    BufferId buf;
    std::uint64_t offset = 0, bytes = 0;  // bytes 0: whole buffer
  };

  void stream(StreamId s, std::string name) {
    at(-1, kHost, [s, name](Observer& o) { o.on_stream_created(s, name); });
  }
  /// The host enqueues an op at time h (EnqueuedOp edge); returns its op_seq.
  std::uint64_t enqueue(TimeNs h) {
    std::uint64_t op = next_op_++;
    at(h, kHost, [op](Observer& o) { o.on_release_sync(kHostAgent, sync_key(SyncKind::EnqueuedOp, op)); });
    return op;
  }
  /// The op runs on stream s over [start, end]: acquires `waits` at start, releases `records` at end.
  void op(std::uint64_t op, StreamId s, TimeNs start, TimeNs end, std::vector<Access> reads, std::vector<Access> writes,
          std::string label = "kernel", std::vector<std::uint64_t> waits = {}, std::vector<std::uint64_t> records = {}) {
    AgentId a = stream_agent(s);
    std::vector<std::pair<BufferId, AddrRange>> r = ranges(reads), w = ranges(writes);
    const std::string_view stored_label = *labels_.insert(std::move(label)).first;  // outlives the run (observer.h)
    at(start, kOpStart, [=](Observer& o) {
      o.on_acquire_sync(a, sync_key(SyncKind::EnqueuedOp, op));
      for (std::uint64_t k : waits) o.on_acquire_sync(a, k);
      for (const auto& [b, rg] : r) o.on_access(a, op, b, rg, false, start);
    });
    at(end, kOpEnd, [=](Observer& o) {
      for (const auto& [b, rg] : w) o.on_access(a, op, b, rg, true, end);
      for (std::uint64_t k : records) o.on_release_sync(a, k);
      DeviceOpSpan span;
      span.op_seq = op;
      span.stream = s;
      span.label = stored_label;
      span.start = start;
      span.end = end;
      o.on_device_op(span);
    });
  }
  void alloc(TimeNs h, BufferId b, StreamId s, Addr addr, std::uint64_t bytes, AgentId by = kHostAgent) {
    BufferInfo info;
    info.id = b;
    info.chunk = {kSharedPool, addr, bytes};
    info.requested_bytes = bytes;
    info.alloc_stream = s;
    info.alloc_time = h;
    bufs_[b] = info;
    at(h, kHost, [=](Observer& o) { o.on_alloc(by, info, h); });
  }
  void release(TimeNs h, BufferId b) {
    BufferInfo info = bufs_.at(b);
    at(h, kHost, [=](Observer& o) { o.on_host_release(info, h); });
  }
  void pool_free(TimeNs t, AgentId by, BufferId b) {
    Chunk c = bufs_.at(b).chunk;
    at(t, kHost, [=](Observer& o) { o.on_pool_free(by, c, b, t); });
  }
  void release_sync(TimeNs t, AgentId a, std::uint64_t key) {
    at(t, kHost, [=](Observer& o) { o.on_release_sync(a, key); });
  }
  /// A program-level op as the random-program tests script it: the host, its clock `h` advanced by
  /// one, enqueues an op on stream `s` that starts after the enqueue, the stream's previous op
  /// (`ready[s]`, updated) and `dep`, and lasts `dur`. Returns its end.
  TimeNs host_op(TimeNs& h, std::vector<TimeNs>& ready, int s, TimeNs dep, TimeNs dur, std::vector<Access> reads,
                 std::vector<Access> writes, std::vector<std::uint64_t> waits, std::vector<std::uint64_t> records,
                 const char* label) {
    h += 1;
    const std::uint64_t id = enqueue(h);
    const TimeNs start = std::max({h + 1, ready[std::size_t(s)], dep});
    const TimeNs end = start + dur;
    op(id, s, start, end, std::move(reads), std::move(writes), label, std::move(waits), std::move(records));
    ready[std::size_t(s)] = end;
    return end;
  }
  /// The host synchronises stream `s` (drained at `ready[s]`) through sync key `key`; its clock `h`
  /// moves past the drain.
  void host_sync_stream(TimeNs& h, const std::vector<TimeNs>& ready, int s, std::uint64_t key) {
    at(ready[std::size_t(s)], kOpEnd, [s, key](Observer& o) { o.on_release_sync(stream_agent(s), key); });
    h = std::max(h, ready[std::size_t(s)]) + 1;
    acquire_sync(h, kHostAgent, key);
  }
  void acquire_sync(TimeNs t, AgentId a, std::uint64_t key) {
    at(t, kHost, [=](Observer& o) { o.on_acquire_sync(a, key); });
  }
  void host_access(TimeNs t, BufferId b, bool write) {
    AddrRange r{bufs_.at(b).chunk.addr, bufs_.at(b).chunk.bytes};
    at(t, kHost, [=](Observer& o) { o.on_access(kHostAgent, 0, b, r, write, t); });
  }
  void at(TimeNs t, Phase p, std::function<void(Observer&)> f) { calls_.push_back({t, p, calls_.size(), std::move(f)}); }

  void play(Observer& o) {
    std::vector<Call> sorted = calls_;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Call& x, const Call& y) { return std::pair(x.t, int(x.p)) < std::pair(y.t, int(y.p)); });
    TimeNs last = 0;
    for (const Call& c : sorted) {
      c.f(o);
      last = std::max(last, c.t);
    }
    o.on_end(last);
  }
  const BufferInfo& buffer(BufferId b) const { return bufs_.at(b); }

 private:
  std::set<std::string> labels_;  // node-based: the views handed out stay valid
  struct Call {
    TimeNs t;
    Phase p;
    std::size_t seq;
    std::function<void(Observer&)> f;
  };
  std::vector<std::pair<BufferId, AddrRange>> ranges(const std::vector<Access>& v) const {
    std::vector<std::pair<BufferId, AddrRange>> out;
    for (const Access& a : v) {
      const Chunk& c = bufs_.at(a.buf).chunk;
      std::uint64_t bytes = a.bytes ? a.bytes : bufs_.at(a.buf).requested_bytes - a.offset;
      out.push_back({a.buf, AddrRange{c.addr + a.offset, bytes}});
    }
    return out;
  }
  std::vector<Call> calls_;
  std::map<BufferId, BufferInfo> bufs_;
  std::uint64_t next_op_ = 0;
};

}  // namespace allocsim::test
