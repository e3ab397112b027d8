// IntervalMap: disjoint cells over an address space, keyed by start address (a std::map), for the
// race detector's shadow memory and pool-lock clocks. A range is visited as the cells that exactly
// tile it: cells are created for gaps and split at the range's ends as needed, so a new allocation
// spanning parts of several old chunks touches each old cell whole. A pass can then merge
// neighbouring cells of the range whose states became equal (Ops::same), so a run of mixed-size
// allocations does not cut the space into ever smaller cells (without merging, training-churn ran
// 78x slower with detection on). Merging only equal cells loses nothing.
//
// A Hint remembers the cell at a range's start (whole-buffer accesses then cost no tree search). A
// merge erases cells, so a hint carries the erase count it was last checked at; when cells were
// erased since, it is still good unless a cell starting at its address was among them.
//
// Ops (a member, it may hold state) says what the cells carry:
//   void split(CellT& lower, CellT& upper)   // upper was just copied from lower (e.g. own a clock)
//   bool same(const CellT&, const CellT&)    // equal state, `end` aside
//   void erased(CellT&)                      // a merged-away cell, before it goes
#pragma once
#include <cstdint>
#include <iterator>
#include <map>
#include <utility>

#include <boost/unordered/unordered_flat_map.hpp>

#include "allocsim/core/types.h"

namespace allocsim::race {

template <class CellT, class Ops>
class IntervalMap {
 public:
  using Map = std::map<Addr, CellT>;
  using Iter = typename Map::iterator;

  struct Hint {
    Iter it;
    std::uint64_t erasures = ~std::uint64_t(0);  // never valid until set
  };

  explicit IntervalMap(Ops ops = {}) : ops_(std::move(ops)) {}
  IntervalMap(const IntervalMap&) = delete;
  IntervalMap& operator=(const IntervalMap&) = delete;
  Ops& ops() { return ops_; }
  std::size_t cell_count() const { return cells_.size(); }

  /// Calls f(cell, begin, end) for the cells that exactly tile [r.begin, r.end()), creating and
  /// splitting cells as needed, then, if `merge`, merges equal neighbours among them. `hint` is the
  /// cell starting at r.begin from an earlier call, if still valid; it is updated to the first cell.
  template <class F>
  void for_each(AddrRange r, Hint& hint, F&& f, bool merge = false) {
    if (r.bytes == 0) return;
    const Addr e = r.end();
    if (!still_valid(hint, r.begin)) hint.it = tile(r.begin, e);
    hint.erasures = erasures_;
    // one pass: visit cells while they tile the range; at a gap or an overhanging cell, tile the rest
    Iter it = hint.it;
    bool several = false;
    for (Addr pos = r.begin; pos < e;) {
      if (it == cells_.end() || it->first != pos || it->second.end > e) it = tile(pos, e);
      f(it->second, it->first, it->second.end);
      pos = it->second.end;
      several |= it != hint.it;
      ++it;
    }
    if (merge && several) [[unlikely]] {
      merge_equal(hint.it, e);
      hint.erasures = erasures_;  // its own cell was kept
    }
  }

  template <class F>
  void for_each(AddrRange r, F&& f, bool merge = false) {
    Hint h;
    for_each(r, h, std::forward<F>(f), merge);
  }

 private:
  bool still_valid(const Hint& h, Addr begin) const {
    if (h.erasures != erasures_) {
      if (h.erasures == ~std::uint64_t(0)) return false;
      auto it = erased_at_.find(begin);
      if (it != erased_at_.end() && it->second > h.erasures) return false;  // its cell is gone
    }
    return h.it->first == begin;
  }

  // Splits `it` at `at` (inside it); returns the new upper cell.
  Iter split(Iter it, Addr at) {
    CellT upper = it->second;
    it->second.end = at;
    ops_.split(it->second, upper);
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
        CellT gap;
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

  // Folds each cell of [first, e) that equals the one before it into that one.
  void merge_equal(Iter first, Addr e) {
    Iter prev = first;
    for (Iter it = std::next(first); it != cells_.end() && it->first < e;) {
      if (it->first == prev->second.end && ops_.same(prev->second, it->second)) {
        prev->second.end = it->second.end;
        ops_.erased(it->second);
        erased_at_[it->first] = ++erasures_;
        it = cells_.erase(it);
      } else {
        prev = it++;
      }
    }
  }

  Map cells_;
  Ops ops_;
  std::uint64_t erasures_ = 0;  // cells erased so far
  // start address -> erasures_ right after the last erase of a cell starting there (open
  // addressing: one entry per distinct boundary ever merged away)
  boost::unordered_flat_map<Addr, std::uint64_t> erased_at_;
};

}  // namespace allocsim::race
