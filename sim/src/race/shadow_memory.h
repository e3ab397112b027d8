// Shadow memory: what happened to every byte range of the pools' address space, for the race
// detector. A std::map of disjoint cells keyed by start address. Cells are split as chunk
// boundaries appear, so a new allocation spanning parts of several freed chunks touches each old
// cell whole. After a pass over a range, neighbouring cells of the range whose state became equal
// (typically: a write ordered after everything before it, then a pool free by one agent) are merged
// again. Without merging, a run of mixed-size allocations cut the address space into ever smaller
// cells and a whole-buffer access walked thousands of them (training-churn ran 78x slower with
// detection on). Merging only identical cells loses nothing, so findings do not change.
//
// Each allocation keeps a Hint to the cell at its start (whole-buffer accesses then cost no tree
// search). A merge erases cells, so a hint carries the erase count it was last checked at; when
// cells were erased since, it is still good unless a cell starting at its address was among them.
//
// Per cell, FastTrack-style: the last write as one epoch (agent, clock) plus what the finding needs
// (allocation, op, time); the reads since that write, usually one epoch (a small set only while
// reads are concurrent); the overwritten writes that raced with their overwriter and are
// not yet ordered before a later write (racers: more latent pairs than the last write alone finds);
// and the pool-lock clock of the bytes (joined at each pool free,
// acquired by the next allocation that overlaps them). The manifest check's "own last write" is
// kept per allocation (detector_state.h, AllocHot::own_writes), so no number of later writers by
// other allocations can evict it.
#pragma once
#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <boost/container/static_vector.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include "allocsim/core/types.h"
#include "vector_clock.h"

namespace allocsim::race {

/// One access as the shadow remembers it. `alloc` is the detector's allocation instance index.
struct AccessRec {
  Clock clock = 0;  // 0: no access
  AgentId agent = -1;
  std::int32_t alloc = -1;
  bool write = false;
  std::uint64_t op_seq = 0;
  TimeNs t = 0;
  bool valid() const { return clock != 0; }
  bool operator==(const AccessRec&) const = default;
};

struct Cell {
  Addr end = 0;
  AccessRec last_write;
  boost::container::small_vector<AccessRec, 2> reads;     // reads since last_write (not ordered among them)
  std::vector<AccessRec> racers;  // overwritten writes that raced with their overwriter (empty unless racing)
  std::int32_t free_clock = ClockPool::kNone;              // pool lock of these bytes
};

class ShadowMemory {
 public:
  using Map = std::map<Addr, Cell>;
  using Iter = Map::iterator;

  /// A remembered cell (the one at an allocation's start); valid while no cell was erased since.
  struct Hint {
    Iter it;
    std::uint64_t erasures = ~std::uint64_t(0);  // never valid until set
  };

  ClockPool& clocks() { return clocks_; }
  std::size_t cell_count() const { return cells_.size(); }

  /// Calls f(cell, begin, end) for the cells that exactly tile [r.begin, r.end()), creating and
  /// splitting cells as needed, then merges equal neighbours among them. `hint` is the cell starting
  /// at r.begin from an earlier call, if still valid; it is updated to the first cell.
  template <class F>
  void for_each(AddrRange r, Hint& hint, F&& f) {
    if (r.bytes == 0) return;
    const Addr e = r.end();
    if (!still_valid(hint, r.begin)) hint = {tile(r.begin, e), erasures_};
    hint.erasures = erasures_;
    // one pass: visit cells while they tile the range; at a gap or an overhanging cell, tile the rest
    Iter it = hint.it;
    std::size_t visited = 0;
    for (Addr pos = r.begin; pos < e;) {
      if (it == cells_.end() || it->first != pos || it->second.end > e) it = tile(pos, e);
      f(it->second, it->first, it->second.end);
      pos = it->second.end;
      ++it;
      ++visited;
    }
    if (visited > 1) [[unlikely]] {
      merge_equal(hint.it, e);
      hint.erasures = erasures_;  // its own cell was kept
    }
  }

 private:
  // Splits `it` at `at` (inside it); returns the new upper cell.
  Iter split(Iter it, Addr at) {
    Cell upper = it->second;
    it->second.end = at;
    if (upper.free_clock != ClockPool::kNone) upper.free_clock = clocks_.make(clocks_.at(upper.free_clock));
    return cells_.emplace_hint(std::next(it), at, std::move(upper));
  }

  Iter tile(Addr b, Addr e) {
    Iter it = cells_.upper_bound(b);
    if (it != cells_.begin()) {
      Iter p = std::prev(it);
      if (p->second.end > b) it = p->first < b ? split(p, b) : p;
    }
    Iter first = cells_.end();
    for (Addr pos = b; pos < e;) {
      if (it == cells_.end() || it->first > pos) {
        Cell gap;
        gap.end = it == cells_.end() ? e : std::min(e, it->first);
        it = cells_.emplace_hint(it, pos, std::move(gap));
      }
      if (it->second.end > e) split(it, e);
      if (first == cells_.end()) first = it;
      pos = it->second.end;
      ++it;
    }
    return first;
  }

  bool still_valid(const Hint& h, Addr begin) const {
    if (h.erasures != erasures_) {
      if (h.erasures == ~std::uint64_t(0)) return false;
      auto it = erased_at_.find(begin);
      if (it != erased_at_.end() && it->second > h.erasures) return false;  // its cell is gone
    }
    return h.it->first == begin;
  }

  static bool same_state(const Cell& a, const Cell& b, ClockPool& clocks) {
    if (!(a.last_write == b.last_write) || a.reads.size() != b.reads.size() || a.racers != b.racers) return false;
    for (std::size_t i = 0; i < a.reads.size(); ++i)
      if (!(a.reads[i] == b.reads[i])) return false;
    if (a.free_clock == ClockPool::kNone || b.free_clock == ClockPool::kNone) return a.free_clock == b.free_clock;
    return clocks.at(a.free_clock) == clocks.at(b.free_clock);
  }

  // Folds each cell of [first, e) that equals the one before it into that one.
  void merge_equal(Iter first, Addr e) {
    Iter prev = first;
    for (Iter it = std::next(first); it != cells_.end() && it->first < e;) {
      if (it->first == prev->second.end && same_state(prev->second, it->second, clocks_)) {
        prev->second.end = it->second.end;
        if (it->second.free_clock != ClockPool::kNone) clocks_.drop(it->second.free_clock);
        erased_at_[it->first] = ++erasures_;
        it = cells_.erase(it);
      } else {
        prev = it++;
      }
    }
  }

  Map cells_;
  ClockPool clocks_;
  std::uint64_t erasures_ = 0;  // cells erased so far
  // start address -> erasures_ right after the last erase of a cell starting there (open
  // addressing: one entry per distinct boundary ever merged away)
  boost::unordered_flat_map<Addr, std::uint64_t> erased_at_;
};

}  // namespace allocsim::race
