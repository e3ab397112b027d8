// A brute-force happens-before oracle for the race detector (issue 15), written without the
// detector's vector clocks, over a recorded trace of observer calls.
//
// The event graph. Nodes are the calls that carry an agent: release, acquire, access, allocation,
// pool free. Edges (docs/design.md section 3, observer.h):
//  - program order: each agent's nodes in trace order (host, callback thread, each stream);
//  - sync: every release of a key -> every later acquire of that key (release/acquire join,
//    TSan-style), except that an enqueued-op or callback hand-off object is consumed by its acquire
//    (observer.h: acquired once), so an acquire of those sees only the releases since the previous
//    acquire of the key. This covers host enqueue -> op, event record -> wait/sync/query, stream
//    drain -> host sync, callback marker -> callback, semaphore release -> acquire;
//  - pool lock: every pool free -> every later allocation whose chunk overlaps the freed chunk
//    (same pool).
// x happens-before y iff the graph has a path x -> y.
//
// Two independent ways to decide it, compared with each other on every program:
//  1. every ordering: all executions of the graph are enumerated as the set of their prefixes
//     (downsets: sets of nodes closed under predecessors; every topological order is a path
//     through them from the empty set to the full one, and every downset is a prefix of some
//     topological order). y can run before x iff some prefix holds y and not x; x happens-before y
//     iff no prefix does. To keep this cheap, each agent's nodes are cut into segments that start
//     at a node with an incoming cross-agent edge and end at a node with an outgoing one; nodes
//     inside a segment are ordered by program order, and x in segment X, y in segment Y != X are
//     ordered exactly when X is (a path from x leaves X only through X's last node or program
//     order; one into y enters Y only through Y's first node). Used when there are <= 64 segments.
//  2. reachability: a plain depth-first search from each access over the graph's successors.
//  They agree because a downset containing y but not x exists iff x does not reach y (take the
//  predecessors-closure of y: it excludes x exactly when x is not an ancestor of y).
//
// A latent race (docs/races.md, race_detector.h): two accesses of DIFFERENT allocation instances
// to overlapping bytes, at least one a write, neither happening before the other. Reads of one
// allocation by itself, and any two accesses of one allocation, are never races. The detector
// reports distinct unordered pairs of allocation instances (every finding record is kept when
// max_findings is large), so that is the unit compared: the set of (instance, instance) pairs.
// Instances are identified by BufferId here: the generator allocates each BufferId once.
//
// What the detector is documented to miss (docs/races.md): a pair (A, B) whose only racing access
// pairs (a, b), a earlier in the trace, have a's bytes overwritten in happens-before order before b
// arrived (a write w between them in the trace with a -> w, on every byte they share); more than 4
// unordered writers on the same bytes; a read dropped from a full read set (8). The oracle also
// computes the pairs the detector MUST report: those with a racing access pair for which some
// shared byte has no such overwrite. Programs here have at most 8 reads, so the read cap never
// applies, and at most 5 allocation instances, so the racer cap (4) applies only when 5 unordered
// writes pile up on the same bytes; a program where that lost a pair would show as a missed pair
// (none does in the seeds the tests use).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "allocsim/core/observer.h"

namespace allocsim::test {

/// One observer call, as recorded; replay() hands it to another observer unchanged.
struct TraceCall {
  enum Kind { StreamCreated, Release, Acquire, Access, Alloc, HostRelease, PoolFree, DeviceOp };
  Kind kind = Access;
  AgentId agent = -1;
  std::uint64_t word = 0;  // sync key, or op_seq of an access
  BufferId buf = -1;
  AddrRange range{0, 0};  // access range, allocated or freed chunk
  bool write = false;
  TimeNs t = 0;
  BufferInfo info;  // Alloc, HostRelease
  Chunk chunk;      // PoolFree
  DeviceOpSpan span;
  std::string text;  // stream name, op label
};

class TraceRecorder final : public Observer {
 public:
  std::vector<TraceCall> calls;
  TimeNs end = 0;

  void on_stream_created(StreamId s, std::string_view name) override {
    TraceCall c;
    c.kind = TraceCall::StreamCreated;
    c.agent = stream_agent(s);
    c.text = std::string(name);
    calls.push_back(c);
  }
  void on_release_sync(AgentId a, std::uint64_t key) override { sync(TraceCall::Release, a, key); }
  void on_acquire_sync(AgentId a, std::uint64_t key) override { sync(TraceCall::Acquire, a, key); }
  void on_access(AgentId a, std::uint64_t op_seq, BufferId alloc, AddrRange range, bool write,
                 TimeNs t) override {
    TraceCall c;
    c.kind = TraceCall::Access;
    c.agent = a;
    c.word = op_seq;
    c.buf = alloc;
    c.range = range;
    c.write = write;
    c.t = t;
    calls.push_back(c);
  }
  void on_alloc(AgentId a, const BufferInfo& buf, TimeNs t) override {
    TraceCall c;
    c.kind = TraceCall::Alloc;
    c.agent = a;
    c.buf = buf.id;
    c.info = buf;
    c.range = {buf.chunk.addr, buf.chunk.bytes};
    c.t = t;
    calls.push_back(c);
  }
  void on_host_release(const BufferInfo& buf, TimeNs t) override {
    TraceCall c;
    c.kind = TraceCall::HostRelease;
    c.buf = buf.id;
    c.info = buf;
    c.t = t;
    calls.push_back(c);
  }
  void on_pool_free(AgentId a, const Chunk& ch, BufferId buf, TimeNs t) override {
    TraceCall c;
    c.kind = TraceCall::PoolFree;
    c.agent = a;
    c.buf = buf;
    c.chunk = ch;
    c.range = {ch.addr, ch.bytes};
    c.t = t;
    calls.push_back(c);
  }
  void on_device_op(const DeviceOpSpan& span) override {
    TraceCall c;
    c.kind = TraceCall::DeviceOp;
    c.span = span;
    c.text = std::string(span.label);
    c.t = span.start;
    calls.push_back(c);
  }
  void on_end(TimeNs t) override { end = t; }

 private:
  void sync(TraceCall::Kind k, AgentId a, std::uint64_t key) {
    TraceCall c;
    c.kind = k;
    c.agent = a;
    c.word = key;
    calls.push_back(c);
  }
};

/// Hands the recorded calls to `o`, in order. `calls` must outlive `o`'s use of labels and names.
inline void replay(const std::vector<TraceCall>& calls, TimeNs end, Observer& o) {
  for (const TraceCall& c : calls) {
    switch (c.kind) {
      case TraceCall::StreamCreated:
        o.on_stream_created(c.agent - stream_agent(0), c.text);
        break;
      case TraceCall::Release:
        o.on_release_sync(c.agent, c.word);
        break;
      case TraceCall::Acquire:
        o.on_acquire_sync(c.agent, c.word);
        break;
      case TraceCall::Access:
        o.on_access(c.agent, c.word, c.buf, c.range, c.write, c.t);
        break;
      case TraceCall::Alloc:
        o.on_alloc(c.agent, c.info, c.t);
        break;
      case TraceCall::HostRelease:
        o.on_host_release(c.info, c.t);
        break;
      case TraceCall::PoolFree:
        o.on_pool_free(c.agent, c.chunk, c.buf, c.t);
        break;
      case TraceCall::DeviceOp: {
        DeviceOpSpan sp = c.span;
        sp.label = c.text;
        o.on_device_op(sp);
        break;
      }
    }
  }
  o.on_end(end);
}

inline std::string agent_label(AgentId a) {
  if (a == kHostAgent) return "host";
  if (a == kCallbackAgent) return "cb";
  return "s" + std::to_string(a - stream_agent(0));
}

inline std::string key_label(std::uint64_t key) {
  static const char* kinds[] = {"enqueue", "event", "drain", "handoff", "semaphore", "all-idle", "callback-done"};
  unsigned k = unsigned(key >> 56);
  return std::string(k < 6 ? kinds[k] : "?") + "#" + std::to_string(key & ((std::uint64_t(1) << 56) - 1));
}

inline std::string describe(const TraceCall& c) {
  std::ostringstream o;
  switch (c.kind) {
    case TraceCall::StreamCreated:
      o << "stream " << agent_label(c.agent) << " '" << c.text << "'";
      break;
    case TraceCall::Release:
      o << agent_label(c.agent) << " release " << key_label(c.word);
      break;
    case TraceCall::Acquire:
      o << agent_label(c.agent) << " acquire " << key_label(c.word);
      break;
    case TraceCall::Access:
      o << agent_label(c.agent) << (c.write ? " WRITE" : " read ") << " buf" << c.buf << " [" << c.range.begin
        << "," << c.range.end() << ") op" << c.word << " t=" << c.t;
      break;
    case TraceCall::Alloc:
      o << agent_label(c.agent) << " alloc buf" << c.buf << " [" << c.range.begin << "," << c.range.end()
        << ") t=" << c.t;
      break;
    case TraceCall::HostRelease:
      o << "host release buf" << c.buf << " t=" << c.t;
      break;
    case TraceCall::PoolFree:
      o << agent_label(c.agent) << " pool free buf" << c.buf << " [" << c.range.begin << "," << c.range.end()
        << ") t=" << c.t;
      break;
    case TraceCall::DeviceOp:
      o << "(span op" << c.span.op_seq << " '" << c.text << "')";
      break;
  }
  return o.str();
}

using AllocPair = std::pair<BufferId, BufferId>;  // (smaller, larger)

struct OracleResult {
  std::set<AllocPair> latent;    // every latent pair (brute force)
  std::set<AllocPair> required;  // those the detector must report (not hidden by a documented miss)
  // the same, counting only the misses docs/races.md documents (see TraceOracle::own_overwrite_hides)
  std::set<AllocPair> required_strict;
  std::map<AllocPair, AddrRange> hull;  // hull of every racing overlap of a pair
  // racing access pairs: (earlier call, later call), both indices into the trace
  std::vector<std::pair<std::size_t, std::size_t>> racing;
  std::size_t access_pairs = 0;            // pairs of accesses of different allocations to overlapping bytes
  std::size_t segments = 0, prefixes = 0;  // the every-ordering enumeration (0: not run)
  bool orders_agree = true;  // the enumeration and the search gave the same order on every access pair
  std::string graph;         // nodes and cross edges, for failure reports
};

class TraceOracle {
 public:
  /// `drop_edge`: a sync edge to leave out (release call index, acquire call index), to show
  /// that the comparison fails without it; {-1, -1} for none.
  explicit TraceOracle(const std::vector<TraceCall>& calls, std::pair<long, long> drop_edge = {-1, -1})
      : calls_(calls) {
    build(drop_edge);
  }

  OracleResult run(bool enumerate = true) {
    OracleResult r;
    r.graph = graph_text();
    std::vector<std::vector<bool>> reach = reachability();  // over accesses: reach[i][j]: acc i -> acc j
    std::vector<std::vector<bool>> before;                  // same, from the enumeration
    if (enumerate && enumerate_orders(before, r)) {
      for (std::size_t i = 0; i < accesses_.size(); ++i)
        for (std::size_t j = 0; j < accesses_.size(); ++j)
          if (i != j && reach[i][j] != before[i][j]) r.orders_agree = false;
    }
    for (std::size_t i = 0; i < accesses_.size(); ++i)
      for (std::size_t j = i + 1; j < accesses_.size(); ++j) {
        const TraceCall& x = calls_[accesses_[i]];
        const TraceCall& y = calls_[accesses_[j]];
        if (x.buf == y.buf || !alloc_of_.count(x.buf) || !alloc_of_.count(y.buf)) continue;
        const Addr b = std::max(x.range.begin, y.range.begin), e = std::min(x.range.end(), y.range.end());
        if (b >= e) continue;
        ++r.access_pairs;
        if (!x.write && !y.write) continue;
        if (reach[i][j] || reach[j][i]) continue;
        AllocPair p = std::minmax(x.buf, y.buf);
        r.latent.insert(p);
        r.racing.push_back({accesses_[i], accesses_[j]});
        auto [it, fresh] = r.hull.try_emplace(p, AddrRange{b, e - b});
        if (!fresh) {
          Addr lo = std::min(it->second.begin, b), hi = std::max(it->second.end(), e);
          it->second = {lo, hi - lo};
        }
        // Required unless every shared byte was overwritten between x and y in the trace: in
        // happens-before order after x (documented), or, x being a write, by a write of x's own
        // allocation that is not ordered after x (the fixed gap: see own_overwrite_hides).
        bool documented_only = false, required = false;
        for (Addr a = b; a < e; ++a) {
          bool documented = false, own = false;
          for (std::size_t k = i + 1; k < j; ++k) {
            const TraceCall& w = calls_[accesses_[k]];
            if (!w.write || !alloc_of_.count(w.buf) || a < w.range.begin || a >= w.range.end()) continue;
            documented = documented || reach[i][k];
            own = own || (x.write && w.buf == x.buf && !reach[i][k]);
          }
          documented_only = documented_only || !documented;
          required = required || (!documented && !(own && own_overwrite_hides));
        }
        if (required) r.required.insert(p);
        if (documented_only) r.required_strict.insert(p);
      }
    return r;
  }

  std::size_t accesses() const { return accesses_.size(); }

  // A gap this oracle found, now fixed (race_detector.cpp, update_racers): the detector kept one
  // write per allocation per byte range, so a write x of allocation A was forgotten when A wrote
  // the same bytes again without being ordered after x; a later access y of another allocation
  // ordered after the second write but not after x then raced with x unseen. When true, `required`
  // leaves such pairs out (to check a detector with the gap); `required_strict` never does.
  bool own_overwrite_hides = false;

 private:
  static bool consumed_by_acquire(std::uint64_t key) {
    auto k = SyncKind(key >> 56);
    return k == SyncKind::EnqueuedOp || k == SyncKind::CallbackHandoff || k == SyncKind::CallbackDone;
  }

  void build(std::pair<long, long> drop_edge) {
    const std::size_t n = calls_.size();
    succ_.assign(n, {});
    pred_.assign(n, {});
    cross_in_.assign(n, false);
    cross_out_.assign(n, false);
    is_node_.assign(n, false);
    std::map<AgentId, std::size_t> last_of_agent;
    std::map<std::uint64_t, std::vector<std::size_t>> released;  // key -> releases not yet consumed
    std::vector<std::size_t> frees;
    for (std::size_t i = 0; i < n; ++i) {
      const TraceCall& c = calls_[i];
      if (c.kind == TraceCall::StreamCreated || c.kind == TraceCall::HostRelease ||
          c.kind == TraceCall::DeviceOp)
        continue;
      if (c.agent < 0) continue;
      if (c.kind == TraceCall::Access && c.range.bytes == 0) continue;
      is_node_[i] = true;
      if (auto it = last_of_agent.find(c.agent); it != last_of_agent.end()) edge(it->second, i, false);
      last_of_agent[c.agent] = i;
      switch (c.kind) {
        case TraceCall::Release:
          released[c.word].push_back(i);
          break;
        case TraceCall::Acquire: {
          auto it = released.find(c.word);
          if (it == released.end()) break;
          for (std::size_t r : it->second)
            if (long(r) != drop_edge.first || long(i) != drop_edge.second) edge(r, i, true);
          if (consumed_by_acquire(c.word)) released.erase(it);
          break;
        }
        case TraceCall::Alloc:
          alloc_of_[c.buf] = i;
          for (std::size_t f : frees) {
            const TraceCall& fc = calls_[f];
            if (fc.chunk.pool == c.info.chunk.pool && fc.range.begin < c.range.end() &&
                c.range.begin < fc.range.end())
              edge(f, i, true);
          }
          break;
        case TraceCall::PoolFree:
          frees.push_back(i);
          break;
        case TraceCall::Access:
          accesses_.push_back(i);
          break;
        default:
          break;
      }
    }
  }

  void edge(std::size_t from, std::size_t to, bool cross) {
    succ_[from].push_back(to);
    pred_[to].push_back(from);
    if (cross) {
      cross_out_[from] = true;
      cross_in_[to] = true;
    }
  }

  // Oracle 2: depth-first search from every access.
  std::vector<std::vector<bool>> reachability() const {
    std::vector<long> index_of(calls_.size(), -1);
    for (std::size_t i = 0; i < accesses_.size(); ++i) index_of[accesses_[i]] = long(i);
    std::vector<std::vector<bool>> reach(accesses_.size(), std::vector<bool>(accesses_.size(), false));
    for (std::size_t i = 0; i < accesses_.size(); ++i) {
      std::vector<bool> seen(calls_.size(), false);
      std::vector<std::size_t> stack{accesses_[i]};
      while (!stack.empty()) {
        std::size_t v = stack.back();
        stack.pop_back();
        for (std::size_t w : succ_[v]) {
          if (seen[w]) continue;
          seen[w] = true;
          if (index_of[w] >= 0) reach[i][std::size_t(index_of[w])] = true;
          stack.push_back(w);
        }
      }
    }
    return reach;
  }

  // Oracle 1: every prefix of every ordering of the segment graph. Returns false when there are
  // more than 64 segments (not run).
  bool enumerate_orders(std::vector<std::vector<bool>>& before, OracleResult& r) const {
    const std::size_t n = calls_.size();
    std::vector<int> seg_of(n, -1);
    std::map<AgentId, int> open;  // agent -> its open segment
    int segs = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!is_node_[i]) continue;
      AgentId a = calls_[i].agent;
      auto it = open.find(a);
      if (it == open.end() || cross_in_[i]) it = open.insert_or_assign(a, segs++).first;
      seg_of[i] = it->second;
      if (cross_out_[i]) open.erase(a);
    }
    r.segments = std::size_t(segs);
    if (segs > 64) return false;
    std::vector<std::uint64_t> seg_pred(std::size_t(segs), 0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j : succ_[i])
        if (seg_of[i] != seg_of[j]) seg_pred[std::size_t(seg_of[j])] |= std::uint64_t(1) << seg_of[i];
    const std::uint64_t all = segs == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << segs) - 1;
    // can_precede[y] has bit x when some prefix holds y but not x
    std::vector<std::uint64_t> can_precede(std::size_t(segs), 0);
    std::unordered_set<std::uint64_t> seen{0};
    std::vector<std::uint64_t> stack{0};
    while (!stack.empty()) {
      std::uint64_t s = stack.back();
      stack.pop_back();
      for (int y = 0; y < segs; ++y)
        if (s >> y & 1) can_precede[std::size_t(y)] |= all & ~s;
      for (int x = 0; x < segs; ++x) {
        if (s >> x & 1 || (seg_pred[std::size_t(x)] & ~s)) continue;
        std::uint64_t t = s | std::uint64_t(1) << x;
        if (seen.insert(t).second) stack.push_back(t);
      }
    }
    r.prefixes = seen.size();
    before.assign(accesses_.size(), std::vector<bool>(accesses_.size(), false));
    for (std::size_t i = 0; i < accesses_.size(); ++i)
      for (std::size_t j = 0; j < accesses_.size(); ++j) {
        if (i == j) continue;
        int x = seg_of[accesses_[i]], y = seg_of[accesses_[j]];
        before[i][j] = x == y ? accesses_[i] < accesses_[j] : !(can_precede[std::size_t(y)] >> x & 1);
      }
    return true;
  }

  std::string graph_text() const {
    std::ostringstream o;
    for (std::size_t i = 0; i < calls_.size(); ++i) {
      const TraceCall& c = calls_[i];
      if (c.kind == TraceCall::StreamCreated || c.kind == TraceCall::DeviceOp) continue;
      o << "  #" << i << " " << describe(c);
      bool first = true;
      for (std::size_t p : pred_[i])
        if (calls_[p].agent != c.agent) {
          o << (first ? "   <- " : ", ") << "#" << p;
          first = false;
        }
      o << "\n";
    }
    return o.str();
  }

  const std::vector<TraceCall>& calls_;
  std::vector<std::vector<std::size_t>> succ_, pred_;
  std::vector<bool> cross_in_, cross_out_, is_node_;
  std::vector<std::size_t> accesses_;  // call indices of the accesses, in trace order
  std::map<BufferId, std::size_t> alloc_of_;
};

}  // namespace allocsim::test
