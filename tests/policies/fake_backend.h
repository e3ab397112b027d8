// A scripted Backend for unit tests of free policies and guards in isolation (no engine, no pool):
// it records every call as a line of text, keeps host callbacks until the test runs them, and
// completes events only when the test (or a host wait step) says so. Like the fake sub-allocator
// of TSL's BFC tests, it makes a policy's contract assertable call by call.
#pragma once
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "allocsim/core/policy.h"

namespace allocsim::test {

class FakeBackend final : public Backend {
 public:
  static constexpr StreamId kCallbackStreamBase = 100;  // callback_stream(s) == 100 + s

  // ---- what the test scripts
  Params param_values;
  bool fail_callbacks = false;  // add_host_callback returns false (injected enqueue failure)
  std::set<EventId> done;       // events that query as complete

  // ---- device progress model (optional; used by the safety property test)
  // Each stream has a count of enqueued uses; an event recorded on s marks position enqueued[s];
  // completed[s] is how far the device got. An event queries done iff its position <= completed.
  // The host's (and each callback's) knowledge of completion is tracked so that pool_free can
  // check the freed buffer's uses were all observed complete in the freeing context.
  bool model_progress = false;  // off: events complete only through `done` and host waits
  std::map<StreamId, int> enqueued, completed;
  std::map<BufferId, std::map<StreamId, int>> needs;  // buffer -> stream -> position of its last use
  int unsafe_frees = 0;                                // frees not ordered after the buffer's uses

  /// The test enqueued a use of `buf` on each of `streams`.
  void use(BufferId buf, const std::vector<StreamId>& streams) {
    for (StreamId s : streams) needs[buf][s] = ++enqueued[s];
  }

  // ---- what the test inspects
  std::vector<std::string> log;                   // every call, in order
  std::vector<std::pair<Chunk, BufferId>> freed;  // pool_free calls, in order
  std::vector<std::string> warnings;
  int fallbacks = 0;

  /// Run a plan as an interpreter would: Do steps at once (their `next` steps before the rest),
  /// Wait steps logged and completing what they wait for.
  void execute(Plan plan) {
    for (Step& s : plan) {
      switch (s.kind) {
        case Step::Kind::Do: {
          Plan next;
          s.fn(*this, next);
          execute(std::move(next));
          break;
        }
        case Step::Kind::WaitEvent:
          log.push_back("WAIT_EVENT e" + std::to_string(s.event));
          done.insert(s.event);
          if (auto it = event_pos_.find(s.event); it != event_pos_.end()) {
            complete(it->second.first, it->second.second);
            observe(host_seen_, it->second.first, it->second.second);
          }
          break;
        case Step::Kind::WaitStream:
          log.push_back("WAIT_STREAM s" + std::to_string(s.stream));
          for (auto& [e, st] : recorded_on_)
            if (st == s.stream) done.insert(e);
          complete(s.stream, enqueued[s.stream]);
          observe(host_seen_, s.stream, enqueued[s.stream]);
          break;
        case Step::Kind::WaitAll:
          log.push_back("WAIT_ALL");
          for (auto& [e, st] : recorded_on_) done.insert(e);
          for (auto& [st, n] : enqueued) {
            complete(st, n);
            observe(host_seen_, st, n);
          }
          run_callbacks();
          break;
        case Step::Kind::WaitPoolFree:
          log.push_back("WAIT_POOL_FREE pool" + std::to_string(s.pool) + " until " + std::to_string(s.deadline));
          break;
        case Step::Kind::AcquireSemaphore: log.push_back("ACQUIRE"); break;
        case Step::Kind::LockMutex: log.push_back("LOCK m" + std::to_string(s.mutex)); break;
      }
    }
  }

  /// The callback thread catches up: run every enqueued host callback, oldest first.
  void run_callbacks() {
    while (!callbacks_.empty()) {
      HostFn fn = std::move(callbacks_.front().fn);
      Seen seen = std::move(callbacks_.front().seen);
      callbacks_.erase(callbacks_.begin());
      log.push_back("CALLBACK_RUNS");
      for (auto& [st, pos] : seen) complete(st, pos);  // the callback ran: its waits completed
      in_callback_ = &seen;
      fn(*this);
      in_callback_ = nullptr;
    }
  }
  std::size_t pending_callbacks() const { return callbacks_.size(); }

  /// The last event recorded on stream `s` (kNoEvent if none).
  EventId last_event_on(StreamId s) const {
    EventId last = kNoEvent;
    for (auto& [e, st] : recorded_on_)
      if (st == s) last = std::max(last, e);
    return last;
  }
  int count(std::string_view prefix) const {
    return int(std::count_if(log.begin(), log.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; }));
  }
  bool was_freed(BufferId b) const {
    return std::any_of(freed.begin(), freed.end(), [&](auto& f) { return f.second == b; });
  }

  // ---- Backend
  TimeNs now() const override { return now_ns; }
  Chooser& chooser() override {
    if (!chooser_) chooser_ = make_seeded_chooser(1);
    return *chooser_;
  }
  const Params& params() const override { return param_values; }
  void warn(std::string message) override { warnings.push_back(std::move(message)); }
  StreamId compute_stream() const override { return 0; }
  StreamId callback_stream(StreamId source) override { return kCallbackStreamBase + source; }
  EventId create_event() override {
    log.push_back("create e" + std::to_string(next_event_));
    return next_event_++;
  }
  void destroy_event(EventId e) override { log.push_back("destroy e" + std::to_string(e)); }
  void record_event(EventId e, StreamId s) override {
    log.push_back("record e" + std::to_string(e) + " on s" + std::to_string(s));
    recorded_on_[e] = s;
    event_pos_[e] = {s, enqueued[s]};
  }
  void stream_wait(StreamId s, EventId e) override {
    log.push_back("s" + std::to_string(s) + " waits e" + std::to_string(e));
    if (auto it = event_pos_.find(e); it != event_pos_.end()) observe(stream_seen_[s], it->second.first, it->second.second);
  }
  bool query_event(EventId e) override {
    auto it = event_pos_.find(e);
    const bool by_progress =
        model_progress && it != event_pos_.end() && it->second.second <= completed[it->second.first];
    const bool d = by_progress || done.count(e) != 0;
    if (d && it != event_pos_.end()) observe(host_seen_, it->second.first, it->second.second);
    log.push_back("query e" + std::to_string(e) + (d ? " done" : " pending"));
    return d;
  }
  bool add_host_callback(StreamId s, HostFn fn, std::string_view what) override {
    log.push_back("callback on s" + std::to_string(s) + " (" + std::string(what) + ")" +
                  (fail_callbacks ? " FAILED" : ""));
    if (fail_callbacks) return false;
    Seen seen = stream_seen_[s];  // what the callback stream waited on ...
    for (auto& [st, pos] : host_seen_) observe(seen, st, pos);  // ... and what the enqueuing host knew
    callbacks_.push_back({std::move(fn), std::move(seen)});
    return true;
  }
  std::optional<Chunk> pool_allocate(PoolId, std::uint64_t) override { return std::nullopt; }
  void pool_free(const Chunk& c, BufferId b) override {
    log.push_back("free b" + std::to_string(b));
    const Seen& seen = in_callback_ ? *in_callback_ : host_seen_;
    for (auto& [st, pos] : needs[b]) {
      auto it = seen.find(st);
      if (it == seen.end() || it->second < pos) ++unsafe_frees;
    }
    freed.push_back({c, b});
  }
  bool pool_alive(PoolId) const override { return true; }
  void count_fallback() override { ++fallbacks; }

  TimeNs now_ns = 0;

 private:
  using Seen = std::map<StreamId, int>;  // stream -> position known complete
  struct Callback {
    HostFn fn;
    Seen seen;
  };
  static void observe(Seen& seen, StreamId s, int pos) { seen[s] = std::max(seen[s], pos); }
  void complete(StreamId s, int pos) { completed[s] = std::max(completed[s], pos); }

  Seen host_seen_;                       // what the host has observed complete
  std::map<StreamId, Seen> stream_seen_; // what each stream waited on (callback streams)
  Seen* in_callback_ = nullptr;          // set while a callback runs
  std::map<EventId, std::pair<StreamId, int>> event_pos_;
  EventId next_event_ = 0;
  std::map<EventId, StreamId> recorded_on_;
  std::vector<Callback> callbacks_;
  std::unique_ptr<Chooser> chooser_;
};

/// A buffer as a policy sees it: chunk at `addr` of `bytes` in `pool`, touched by `streams`
/// (the last one is the last-use stream), allocated on `alloc_stream`.
inline BufferInfo buffer(BufferId id, Addr addr, std::uint64_t bytes, std::vector<StreamId> streams,
                         StreamId alloc_stream = 0, PoolId pool = kSharedPool) {
  BufferInfo b;
  b.id = id;
  b.chunk = {pool, addr, bytes};
  b.requested_bytes = bytes;
  b.alloc_stream = alloc_stream;
  for (StreamId s : streams) b.use_stream_mask |= std::uint64_t(1) << s;
  b.last_use_stream = streams.empty() ? kNoStream : streams.back();
  return b;
}

}  // namespace allocsim::test
