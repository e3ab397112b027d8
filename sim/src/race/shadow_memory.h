// Shadow memory: what happened to every byte range of the pools' address space, for the race
// detector. A std::map of disjoint cells keyed by start address. Cells are split (never erased) as
// chunk boundaries appear, so a new allocation spanning parts of several freed chunks touches each
// old cell whole; because nothing is erased, an iterator to a cell stays valid for the whole run and
// each allocation keeps one as a lookup hint (whole-buffer accesses then cost no tree search).
//
// Per cell, FastTrack-style: the last write as one epoch (agent, clock) plus what the finding needs
// (allocation, op, time); the reads since that write, usually one epoch (a small set only while
// reads are concurrent); the overwritten writes that raced with their overwriter and are
// not yet ordered before a later write (racers: more latent pairs than the last write alone finds);
// and the pool-lock clock of the bytes (joined at each pool free,
// acquired by the next allocation that overlaps them). The manifest check's "own last write" is
// kept per allocation (detector_state.h, AllocRec::own_writes), so no number of later writers by
// other allocations can evict it.
#pragma once
#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <boost/container/static_vector.hpp>

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

  Iter none() { return cells_.end(); }
  ClockPool& clocks() { return clocks_; }
  std::size_t cell_count() const { return cells_.size(); }

  /// Calls f(cell, begin, end) for the cells that exactly tile [r.begin, r.end()), creating and
  /// splitting cells as needed. `hint` (may be none()) is a cell starting at r.begin from an earlier
  /// call; it is updated to the first cell.
  template <class F>
  void for_each(AddrRange r, Iter& hint, F&& f) {
    if (r.bytes == 0) return;
    const Addr e = r.end();
    if (hint == cells_.end() || hint->first != r.begin) hint = tile(r.begin, e);
    // one pass: visit cells while they tile the range; at a gap or an overhanging cell, tile the rest
    Iter it = hint;
    for (Addr pos = r.begin; pos < e;) {
      if (it == cells_.end() || it->first != pos || it->second.end > e) it = tile(pos, e);
      f(it->second, it->first, it->second.end);
      pos = it->second.end;
      ++it;
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

  Map cells_;
  ClockPool clocks_;
};

}  // namespace allocsim::race
