// RaceDetector: observer calls -> happens-before clocks, shadow memory checks, raw findings.
// See race_detector.h for what is found and how it is counted.
#include "allocsim/race/race_detector.h"

#include <algorithm>
#include <cstdio>

#include "detector_state.h"

namespace allocsim {

using race::AccessRec;
using race::AllocRec;
using race::Cell;
using race::RawFinding;

class RaceDetector::Impl : public race::DetectorState {
 public:
  // -- observer calls, queued in batches (call_queue.h) by RaceDetector and handled in order by these
  void drain(race::CallQueue& queue);
  // The hot handlers are inlined into drain()'s loop: as calls, their entry and exit (a large
  // frame) showed among drain's hottest instructions, and the scenario ratios dropped about 3 %.
  [[gnu::always_inline]] inline void handle_release_sync(AgentId a, std::uint64_t key);
  [[gnu::always_inline]] inline void handle_acquire_sync(AgentId a, std::uint64_t key);
  [[gnu::always_inline]] inline void handle_access(AgentId a, std::uint64_t op_seq, BufferId alloc, AddrRange range, bool write, TimeNs t);
  [[gnu::always_inline]] inline void handle_alloc(AgentId a, const BufferInfo& buf, TimeNs t);
  [[gnu::always_inline]] inline void handle_host_release(const BufferInfo& buf, TimeNs t);
  [[gnu::always_inline]] inline void handle_pool_free(AgentId a, const Chunk& c, BufferId buf, TimeNs t);
  void handle_pool_destroyed(PoolId p, TimeNs t);
  void handle_device_op(const DeviceOpSpan& span);

  static constexpr std::size_t kMaxReads = 8;       // read-set cap per cell (oldest dropped)
  static constexpr std::size_t kMaxRacers = 4;      // overwritten racing writes kept per cell

  static std::uint64_t pair_key(std::int32_t x, std::int32_t y) {
    if (x > y) std::swap(x, y);
    return (std::uint64_t(std::uint32_t(x)) << 32) | std::uint32_t(y);
  }

  bool keep_record() const { return raw.size() < options.max_findings; }

  static AddrRange hull(AddrRange a, Addr b, Addr e) {
    Addr lo = std::min(a.begin, b), hi = std::max(a.end(), e);
    return {lo, hi - lo};
  }

  void latent_race(const AccessRec& earlier, const AccessRec& cur, Addr b, Addr e) {
    const std::uint64_t key = pair_key(earlier.alloc, cur.alloc);
    if (key == last_pair) {  // the same pair racing again (the next cell or access of one op)
      if (last_pair_record >= 0) raw[std::size_t(last_pair_record)].range = hull(raw[std::size_t(last_pair_record)].range, b, e);
      return;
    }
    // a pair belongs to its later instance
    auto [slot, inserted] = find_or_add_pair(std::max(earlier.alloc, cur.alloc), std::min(earlier.alloc, cur.alloc),
                                             race::PairRef::Latent, keep_record());
    last_pair = key;
    if (!inserted) {
      last_pair_record = slot ? *slot : -1;
      if (last_pair_record >= 0) raw[std::size_t(last_pair_record)].range = hull(raw[std::size_t(last_pair_record)].range, b, e);
      return;
    }
    ++latent;
    last_pair_record = -1;
    if (!keep_record()) return;  // (a new pair has a slot whenever a record is kept)
    last_pair_record = *slot = std::int32_t(raw.size());
    RawFinding f;
    f.kind = FindingKind::Latent;
    f.range = {b, e - b};
    bool cur_first = cur.alloc < earlier.alloc;  // instances are numbered in allocation order
    f.alloc_a = cur_first ? cur.alloc : earlier.alloc;
    f.alloc_b = cur_first ? earlier.alloc : cur.alloc;
    f.a = cur_first ? cur : earlier;
    f.b = cur_first ? earlier : cur;
    raw.push_back(std::move(f));
  }

  void manifest_corruption(const AccessRec& victim_write, const AccessRec& clobber, const AccessRec& read, Addr b,
                           Addr e) {
    // ordered (victim, clobberer): a swapped pair is a different corruption; the victim owns it
    auto [slot, inserted] = find_or_add_pair(read.alloc, clobber.alloc, race::PairRef::Manifest, keep_record());
    if (!inserted) {
      if (slot && *slot >= 0) raw[std::size_t(*slot)].range = hull(raw[std::size_t(*slot)].range, b, e);
      return;
    }
    ++manifest;
    if (!keep_record()) return;
    *slot = std::int32_t(raw.size());
    RawFinding f;
    f.kind = FindingKind::Manifest;
    f.range = {b, e - b};
    f.alloc_a = read.alloc;
    f.alloc_b = clobber.alloc;
    f.a = read;
    f.b = clobber;
    f.victim_write = victim_write;
    raw.push_back(std::move(f));
  }

  // -- allocation instances
  std::int32_t latest(BufferId buf) const {
    return buf < 0 || std::size_t(buf) >= latest_of.size() ? -1 : latest_of[std::size_t(buf)];
  }
  // The instance an op touched: the latest one allocated before the op was enqueued.
  std::int32_t instance_for(BufferId buf, std::uint64_t op_seq) const {
    std::int32_t i = latest(buf);
    if (i < 0 || !ids_are_op_seqs) return i;
    for (std::int32_t p = i; p >= 0; p = hot[std::size_t(p)].prev_of_buffer) {
      i = p;
      if (hot[std::size_t(p)].enqueue_mark < std::int64_t(op_seq)) break;
    }
    return i;
  }

  // -- the per-cell checks (FastTrack with allocation-aware pruning)
  // Racing writes that a later write overwrote (Cell::racers) are checked too: FastTrack's last
  // write alone forgets a racing write once another allocation's write replaced it, so a chain of
  // allocations reusing the same bytes was undercounted (race_detector.h, docs/races.md).
  [[gnu::noinline]] void check_racers(const Cell& c, Addr b, Addr e, const AccessRec& cur) {
    for (const AccessRec& x : c.racers)
      if (x.alloc != cur.alloc && !ordered_before(x, cur.agent)) latent_race(x, cur, b, e);
  }
  // Before `cur` overwrites `w`: racers ordered before `cur` are dropped; `w` joins them if it is
  // not ordered before `cur`, whatever its allocation (newest last, at most kMaxRacers). A write of
  // `cur`'s own allocation is kept too: it races with no access of that allocation, but a later
  // access of another allocation may be ordered after `cur` and not after it (found by the
  // brute-force oracle, tests/race/oracle_test.cpp).
  [[gnu::noinline]] void update_racers(Cell& c, const AccessRec& w, const AccessRec& cur, bool w_unordered) {
    auto& rs = c.racers;
    rs.erase(std::remove_if(rs.begin(), rs.end(), [&](const AccessRec& x) { return ordered_before(x, cur.agent); }),
             rs.end());
    if (!w_unordered) return;
    if (rs.size() >= kMaxRacers) rs.erase(rs.begin());
    rs.push_back(w);
  }

  // Remember that instance `inst` wrote `r` (the manifest check's "this allocation's own last write");
  // on_access handles a repeat of the first range itself.
  [[gnu::noinline]] void note_own_write(std::int32_t inst, AddrRange r, const AccessRec& cur) {
    race::AllocHot& h = hot[std::size_t(inst)];
    if (h.own_count == 0) {
      h.own_write = {r.begin, r.end(), cur};
      h.own_count = 1;
      return;
    }
    bool found = false;
    for_own_writes(inst, [&](race::OwnWrite& ow) {
      if (ow.begin != r.begin || ow.end != r.end()) return false;
      ow.write = cur;
      return found = true;
    });
    if (found) return;
    std::vector<race::OwnWrite>& more = more_own_writes[inst];
    if (h.own_count < race::AllocHot::kMaxOwnWrites) {
      more.push_back({r.begin, r.end(), cur});
      ++h.own_count;
      return;
    }
    race::OwnWrite& last = more.back();  // bounded: widen the newest entry
    last = {std::min(last.begin, r.begin), std::max(last.end, r.end()), cur};
  }

  void read_cell(Cell& c, Addr b, Addr e, const AccessRec& cur) {
    const AccessRec& w = c.last_write;
    if (w.valid() && w.alloc != cur.alloc) {
      if (!ordered_before(w, cur.agent)) latent_race(w, cur, b, e);
      // Manifest: another allocation wrote these bytes last, yet this allocation had written them
      // itself before (its own write is necessarily older): its data was clobbered before it read it.
      for_own_writes(cur.alloc, [&](const race::OwnWrite& ow) {
        if (ow.begin >= e || b >= ow.end) return false;
        manifest_corruption(ow.write, w, cur, std::max(b, ow.begin), std::min(e, ow.end));
        return true;
      });
    }
    if (!c.racers.empty()) [[unlikely]] check_racers(c, b, e, cur);
    // prune reads of this allocation that are ordered before this one; then add it
    auto& r = c.reads;
    if (r.size() == 1 && r[0].alloc == cur.alloc && ordered_before(r[0], cur.agent)) {
      r[0] = cur;
      return;
    }
    r.erase(std::remove_if(r.begin(), r.end(),
                           [&](const AccessRec& x) { return x.alloc == cur.alloc && ordered_before(x, cur.agent); }),
            r.end());
    if (r.size() >= kMaxReads) r.erase(r.begin());
    r.push_back(cur);
  }

  // Whether write_cell(c, cur) would find nothing and leave `c` holding only `cur`: no unordered
  // last write (of any allocation: see update_racers), no racers, every read ordered before it.
  bool overwrites_quietly(const Cell& c, const AccessRec& cur) {
    const AccessRec& w = c.last_write;
    if (!c.racers.empty() || (w.valid() && !ordered_before(w, cur.agent))) return false;
    for (const AccessRec& x : c.reads)
      if (!ordered_before(x, cur.agent)) return false;
    return true;
  }

  void write_cell(Cell& c, Addr b, Addr e, const AccessRec& cur) {
    AccessRec& w = c.last_write;
    const bool w_unordered = w.valid() && !ordered_before(w, cur.agent);
    if (w_unordered && w.alloc != cur.alloc) latent_race(w, cur, b, e);
    if (w_unordered || !c.racers.empty()) [[unlikely]] {
      check_racers(c, b, e, cur);
      update_racers(c, w, cur, w_unordered);
    }
    auto& r = c.reads;
    bool all_ordered = true;
    for (const AccessRec& x : r) {
      if (ordered_before(x, cur.agent)) continue;
      all_ordered = false;
      if (x.alloc != cur.alloc) latent_race(x, cur, b, e);
    }
    if (all_ordered) r.clear();
    else r.erase(std::remove_if(r.begin(), r.end(), [&](const AccessRec& x) { return ordered_before(x, cur.agent); }),
                 r.end());
    w = cur;
  }
};

RaceDetector::RaceDetector(RaceOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  impl_->clock_of(kCallbackAgent);
}
RaceDetector::~RaceDetector() = default;

void RaceDetector::on_stream_created(StreamId s, std::string_view name) {
  if (s < 0) return;
  drain();  // `name` may not outlive this call: handled now, after the calls before it
  auto& names = impl_->stream_names;
  if (std::size_t(s) >= names.size()) names.resize(std::size_t(s) + 1);
  names[std::size_t(s)] = std::string(name);
  impl_->clock_of(stream_agent(s));
}

static_assert(std::uint8_t(SyncKind::EnqueuedOp) == 0, "vector_clock.h SyncObjects assumes EnqueuedOp == 0");
static_assert(std::uint8_t(SyncKind::Event) == 1 && std::uint8_t(SyncKind::CallbackHandoff) == 3 &&
                  std::uint8_t(SyncKind::CallbackDone) == 6,
              "sync_objects.h keeps these kinds by id under these numbers");

static bool one_shot(std::uint64_t key) {
  auto kind = SyncKind(key >> 56);
  return kind == SyncKind::EnqueuedOp || kind == SyncKind::CallbackHandoff || kind == SyncKind::CallbackDone;
}
static std::int64_t sync_id(std::uint64_t key) { return std::int64_t(key & ((std::uint64_t(1) << 56) - 1)); }

void RaceDetector::Impl::handle_release_sync(AgentId a, std::uint64_t key) {
  if (a < 0) return;
  Impl& d = *this;
  race::VectorClock& vc = d.clock_of(a);
  d.sync.release(a, key, vc);
  vc.tick(a);
  if (SyncKind(key >> 56) == SyncKind::EnqueuedOp) d.max_enqueued = std::max(d.max_enqueued, sync_id(key));
}

void RaceDetector::Impl::handle_acquire_sync(AgentId a, std::uint64_t key) {
  if (a < 0) return;
  Impl& d = *this;
  d.sync.acquire(a, key, d.clock_of(a), one_shot(key));
  if (SyncKind(key >> 56) == SyncKind::EnqueuedOp) d.current_op[std::size_t(a)] = sync_id(key);
}

void RaceDetector::Impl::handle_access(AgentId a, std::uint64_t op_seq, BufferId alloc, AddrRange range, bool write, TimeNs t) {
  if (a < 0 || range.bytes == 0) return;
  Impl& d = *this;
  const race::VectorClock& vc = d.clock_of(a);
  if (a != kHostAgent && d.ids_are_op_seqs && d.current_op[std::size_t(a)] != std::int64_t(op_seq))
    d.ids_are_op_seqs = false;
  std::int32_t inst = d.instance_for(alloc, op_seq);
  if (inst < 0) return;  // an allocation never seen (pre-existing): nothing to compare against
  race::AllocHot& ar = d.hot[std::size_t(inst)];
  AccessRec cur{vc.get(a), a, inst, write, op_seq, t};
  if (write) {
    // The usual write races with nothing and is ordered after every read it overwrites: each cell
    // it spans would end holding just this write, so the range becomes that one cell. Otherwise
    // each cell is checked and updated (and equal ones merged).
    if (d.shadow.all_overlapping(range, ar.hint, [&](const Cell& c) { return d.overwrites_quietly(c, cur); })) {
      ar.hint.index = std::uint32_t(d.shadow.assign(range, ar.hint, [&](Cell& c) {
        c.last_write = cur;
        c.reads.clear();
        c.racers.clear();
      }));
    } else {
      d.shadow.for_each(range, ar.hint, [&](Cell& c, Addr b, Addr e) { d.write_cell(c, b, e, cur); }, /*merge=*/true);
    }
    if (ar.own_count != 0 && ar.own_write.begin == range.begin && ar.own_write.end == range.end())
      ar.own_write.write = cur;  // the usual: the same whole buffer again
    else
      d.note_own_write(inst, range, cur);
  }
  else d.shadow.for_each(range, ar.hint, [&](Cell& c, Addr b, Addr e) { d.read_cell(c, b, e, cur); });
}

void RaceDetector::Impl::handle_alloc(AgentId a, const BufferInfo& buf, TimeNs t) {
  if (a < 0 || buf.id < 0) return;
  Impl& d = *this;
  if (std::size_t(buf.id) >= d.latest_of.size())  // geometric: buffer ids arrive one by one
    d.latest_of.resize(std::max(std::size_t(buf.id) + 1, 2 * d.latest_of.size()), -1);
  const std::int32_t inst = std::int32_t(d.allocs.size());
  AllocRec& rec = d.allocs.emplace_back();
  rec.buffer = buf.id;
  rec.chunk = buf.chunk;
  rec.requested = buf.requested_bytes;
  rec.stream = buf.alloc_stream;
  rec.alloc_time = t;
  race::AllocHot& h = d.hot.emplace_back();
  h.enqueue_mark = d.max_enqueued;
  h.prev_of_buffer = d.latest_of[std::size_t(buf.id)];
  d.latest_of[std::size_t(buf.id)] = inst;
  // the pool lock: acquire every free clock published on these bytes
  race::VectorClock& vc = d.clock_of(a);
  // Exact shortcut: when this agent is already ordered after the latest pool free of every agent
  // (its clock holds each freer's epoch at that free), every clock the lock published is below its
  // own and the join would change nothing. The common case: the host frees and allocates.
  if (!d.pool_lock.ordered_after_all_frees(vc)) d.pool_lock.acquire({buf.chunk.addr, buf.chunk.bytes}, vc);
}

void RaceDetector::Impl::handle_host_release(const BufferInfo& buf, TimeNs t) {
  Impl& d = *this;
  std::int32_t inst = d.instance_for(buf.id, std::uint64_t(d.max_enqueued + 1));
  if (inst < 0) return;
  race::AllocHot& h = d.hot[std::size_t(inst)];
  if (h.released) return;  // released twice: a lifetime bug, the engine's to report
  h.released = true;
  d.allocs[std::size_t(inst)].release_time = t;
}

void RaceDetector::Impl::handle_pool_free(AgentId a, const Chunk& c, BufferId buf, TimeNs t) {
  if (a < 0) return;
  Impl& d = *this;
  // A free into a destroyed pool returns no bytes (and publishes no clock); it, and a free of no
  // allocation seen here, are lifetime bugs, the engine's to report.
  if (std::size_t(c.pool) < d.pool_destroyed.size() && d.pool_destroyed[std::size_t(c.pool)]) return;
  std::int32_t inst = d.latest(buf);
  for (; inst >= 0; inst = d.hot[std::size_t(inst)].prev_of_buffer) {
    const AllocRec& ar = d.allocs[std::size_t(inst)];
    if (ar.chunk.addr == c.addr && ar.chunk.pool == c.pool && !ar.freed) break;
  }
  if (inst < 0) return;
  AllocRec& ar = d.allocs[std::size_t(inst)];
  ar.freed = true;
  ar.free_time = t;
  ar.free_agent = a;
  // the pool lock: publish the freeing agent's clock on the freed bytes, then tick (a release)
  race::VectorClock& vc = d.clock_of(a);
  d.pool_lock.release({c.addr, c.bytes}, a, vc);
  vc.tick(a);
}

void RaceDetector::Impl::handle_pool_destroyed(PoolId p, TimeNs t) {
  (void)t;
  if (p < 0) return;
  auto& v = pool_destroyed;
  if (std::size_t(p) >= v.size()) v.resize(std::size_t(p) + 1, false);
  v[std::size_t(p)] = true;
}

void RaceDetector::Impl::handle_device_op(const DeviceOpSpan& span) {
  // Only ops that access memory can appear in a finding; markers (event records and waits,
  // callback hand-offs) cannot.
  if (span.kind != DeviceOpKind::Marker) spans.record(span);
}

// ---- The observer calls: queued (race_detector.h, call_queue.h), handled here in arrival order.
using race::QueuedCall;

void RaceDetector::drain() { impl_->drain(queue_); }

void RaceDetector::Impl::drain(race::CallQueue& queue) {
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const QueuedCall& c = queue[i];
    switch (c.kind) {
      case QueuedCall::Release: handle_release_sync(c.agent, c.word); break;
      case QueuedCall::Acquire: handle_acquire_sync(c.agent, c.word); break;
      case QueuedCall::Read: handle_access(c.agent, c.word, c.buffer, c.range(), false, c.t); break;
      case QueuedCall::Write: handle_access(c.agent, c.word, c.buffer, c.range(), true, c.t); break;
      case QueuedCall::Alloc: {
        BufferInfo b;
        b.id = c.buffer;
        b.chunk = c.chunk();
        b.requested_bytes = c.word;
        b.alloc_stream = c.stream;
        handle_alloc(c.agent, b, c.t);
        break;
      }
      case QueuedCall::HostRelease: {
        BufferInfo b;
        b.id = c.buffer;
        handle_host_release(b, c.t);
        break;
      }
      case QueuedCall::PoolFree: handle_pool_free(c.agent, c.chunk(), c.buffer, c.t); break;
      case QueuedCall::PoolDestroyed: handle_pool_destroyed(c.pool, c.t); break;
      case QueuedCall::DeviceOp: {
        DeviceOpSpan sp;
        sp.op_seq = c.word;
        sp.stream = c.stream;
        sp.kind = c.op_kind;
        sp.label = c.label();
        sp.start = c.t;
        sp.end = c.t_end;
        handle_device_op(sp);
        break;
      }
    }
  }
  queue.clear();
}

RaceReport RaceDetector::finish(std::string_view policy) {
  drain();
  const Impl& d = *impl_;
  RaceReport out;
  out.latent = d.latent;
  out.manifest = d.manifest;
  out.records = d.records(policy);
  if (d.options.to_stderr)
    for (const Finding& f : out.records) std::fprintf(stderr, "%s\n", format_finding(f).c_str());
  return out;
}

}  // namespace allocsim
