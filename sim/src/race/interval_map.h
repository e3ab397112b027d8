// IntervalMap: disjoint cells over an address space, for the race detector's shadow memory and
// pool-lock clocks. A range is visited as the cells that exactly tile it: cells are created for
// gaps and split at the range's ends as needed, so a new allocation spanning parts of several old
// chunks touches each old cell whole. A pass can then merge neighbouring cells of the range whose
// states became equal (Ops::same), so a run of mixed-size allocations does not cut the space into
// ever smaller cells (without merging, training-churn ran 78x slower with detection on). Merging
// only equal cells loses nothing.
//
// Why flat: cells are split and merged at nearly every allocation of a mixed-size workload, and a
// run has tens to a few thousand cells (109 for the largest PyTorch trace in tests/data). A sorted
// array of 24-byte (start, end, slot) entries, with the cells themselves in a slot array that
// never moves on insert, makes a split or merge a short memmove and a lookup a binary search over
// contiguous memory; std::map's node allocation, rebalancing and pointer chasing made interval
// upkeep most of the detector's cost on training-churn.
//
// A Hint remembers where a range's first cell was (whole-buffer accesses then skip the search): the
// position of the first entry ending after the range's start. It is used when it still is that
// (checked against the entry and the one before it), which survives inserts and erases after it.
//
// Ops (a member, it may hold state) says what the cells carry:
//   void split(CellT& lower, CellT& upper)   // upper was just copied from lower (e.g. own a clock)
//   bool same(const CellT&, const CellT&)    // equal state, `end` aside
//   void erased(CellT&)                      // a merged-away cell, before it goes
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "allocsim/core/types.h"

namespace allocsim::race {

template <class CellT, class Ops>
class IntervalMap {
 public:
  struct Hint {
    std::uint32_t index = ~std::uint32_t(0);  // where the range's first cell was (checked before use)
  };

  explicit IntervalMap(Ops ops = {}) : ops_(std::move(ops)) {}
  IntervalMap(const IntervalMap&) = delete;
  IntervalMap& operator=(const IntervalMap&) = delete;
  std::size_t cell_count() const { return entries_.size(); }

  /// Calls f(cell, begin, end) for the cells that exactly tile [r.begin, r.end()), creating and
  /// splitting cells as needed, then, if `merge`, merges equal neighbours among them. `f` must not
  /// keep the cell reference. `hint` is updated to the range's first cell.
  template <class F>
  void for_each(AddrRange r, Hint& hint, F&& f, bool merge = false) {
    if (r.bytes == 0) return;
    const Addr b = r.begin, e = r.end();
    // (an entry starting at b is the range's position; starts are unique)
    std::size_t i = hint.index < entries_.size() && entries_[hint.index].start == b ? hint.index : tile(b, e);
    const std::size_t first = i;
    // visit entries while they tile the range; at a gap or an overhanging entry, tile the rest
    for (Addr pos = b; pos < e; ++i) {
      if (i == entries_.size() || entries_[i].start != pos || entries_[i].end > e) i = tile(pos, e);
      const Entry& en = entries_[i];
      f(cells_[en.slot], en.start, en.end);
      pos = en.end;
    }
    if (merge && i > first + 1) [[unlikely]]
      merge_equal(first, i);
    hint.index = std::uint32_t(first);
  }

  template <class F>
  void for_each(AddrRange r, F&& f, bool merge = false) {
    Hint h;
    for_each(r, h, std::forward<F>(f), merge);
  }

  /// Makes [r.begin, r.end()) one cell, which fill(cell) sets (it must set every field but `end`:
  /// the cell may be a reused one), and returns its index: cells inside the range are dropped
  /// (Ops::erased) and cells overhanging its ends cut back, in one splice of the entry array. The
  /// cheap form of a for_each whose every cell would end in the same state (a free's epoch, a
  /// write ordered after everything before it): that for_each split the ends, inserted gaps and
  /// merged the pieces again, which was most of a short-lived allocation's detector cost.
  /// Neighbours are not merged into the new cell: they start where other ranges' hints point.
  template <class Fill>
  std::size_t assign(AddrRange r, Hint hint, Fill&& fill) {
    if (r.bytes == 0) return entries_.size();
    const Addr b = r.begin, e = r.end();
    std::size_t i = hint_at(hint, b) ? hint.index : first_ending_after(b);
    std::size_t j = i;  // past the last entry overlapping the range
    while (j < entries_.size() && entries_[j].start < e) ++j;
    if (i < j && entries_[i].start < b) {  // the first overhangs the start: keep its lower part
      if (entries_[i].end > e) split(i, e), j = i + 1;  // ... and the end: its upper part too
      entries_[i].end = b;
      cells_[entries_[i].slot].end = b;
      ++i;
    }
    if (i < j && entries_[j - 1].end > e) entries_[--j].start = e;  // the last overhangs the end
    // [i, j) now lie inside the range: the first one's cell is refilled, the rest go
    if (i == j) {
      CellT c;
      fill(c);
      c.end = e;
      insert(i, b, e, std::move(c));
      return i;
    }
    const std::uint32_t slot = entries_[i].slot;
    fill(cells_[slot]);
    cells_[slot].end = e;
    entries_[i] = Entry{b, e, slot};
    if (j > i + 1) [[unlikely]] {
      for (std::size_t k = i + 1; k < j; ++k) {
        ops_.erased(cells_[entries_[k].slot]);
        free_slots_.push_back(entries_[k].slot);
      }
      entries_.erase(entries_.begin() + std::ptrdiff_t(i + 1), entries_.begin() + std::ptrdiff_t(j));
    }
    return i;
  }

  /// Whether pred(cell) holds for every existing cell that overlaps [r.begin, r.end()) (gaps,
  /// never-visited bytes, are not asked about), changing no cell. `hint` is updated to the range's
  /// position (an assign of the same range next then skips the search).
  template <class P>
  bool all_overlapping(AddrRange r, Hint& hint, P&& pred) const {
    if (r.bytes == 0) return true;
    if (!hint_at(hint, r.begin)) hint.index = std::uint32_t(first_ending_after(r.begin));
    std::size_t i = hint.index;
    for (; i < entries_.size() && entries_[i].start < r.end(); ++i)
      if (!pred(cells_[entries_[i].slot])) return false;
    return true;
  }

  /// Calls f(cell) for each existing cell that overlaps [r.begin, r.end()), changing nothing
  /// (no gap cells, no splits).
  template <class F>
  void visit_overlapping(AddrRange r, F&& f) const {
    if (r.bytes == 0) return;
    std::size_t i = first_ending_after(r.begin);
    for (; i < entries_.size() && entries_[i].start < r.end(); ++i) f(cells_[entries_[i].slot]);
  }

  /// Calls f(cell) for every cell, in address order.
  template <class F>
  void visit_all(F&& f) const {
    for (const Entry& en : entries_) f(cells_[en.slot]);
  }

 private:
  struct Entry {
    Addr start, end;
    std::uint32_t slot;  // index into cells_
  };

  // The hint is still the first entry that ends after `b` (entries are sorted and disjoint).
  bool hint_at(Hint hint, Addr b) const {
    const std::size_t i = hint.index;
    return i < entries_.size() && entries_[i].end > b && (i == 0 || entries_[i - 1].end <= b);
  }

  std::uint32_t new_slot(CellT&& c) {
    if (!free_slots_.empty()) {
      const std::uint32_t s = free_slots_.back();
      free_slots_.pop_back();
      cells_[s] = std::move(c);
      return s;
    }
    cells_.push_back(std::move(c));
    return std::uint32_t(cells_.size() - 1);
  }

  // Inserts [start, end) with a new cell at position `at`.
  void insert(std::size_t at, Addr start, Addr end, CellT&& c) {
    const std::uint32_t s = new_slot(std::move(c));
    entries_.insert(entries_.begin() + std::ptrdiff_t(at), Entry{start, end, s});
  }

  // Splits entry i at `at` (inside it); the upper part is entry i + 1.
  void split(std::size_t i, Addr at) {
    CellT upper = cells_[entries_[i].slot];
    ops_.split(cells_[entries_[i].slot], upper);
    const Addr end = entries_[i].end;
    entries_[i].end = at;
    cells_[entries_[i].slot].end = at;
    upper.end = end;
    insert(i + 1, at, end, std::move(upper));
  }

  // The first entry that ends after `a` (entries are sorted and disjoint: ends are sorted too).
  // In a map of more than a few cells, by branch-free halving (a conditional move per step): there
  // the addresses looked up follow no pattern (a pool free's range among training-churn's ~30
  // cells), and std::upper_bound's branches were mispredicted about every other step. In a small
  // map the branches are predictable and beat the moves' dependency chain.
  std::size_t first_ending_after(Addr a) const {
    std::size_t n = entries_.size();
    if (n <= 8)
      return std::size_t(
          std::upper_bound(entries_.begin(), entries_.end(), a, [](Addr x, const Entry& en) { return x < en.end; }) -
          entries_.begin());
    const Entry* base = entries_.data();
    while (n > 1) {  // the answer lies in [base, base + n]
      const std::size_t half = n / 2;
      base = base[half].end <= a ? base + half : base;
      n -= half;
    }
    return std::size_t(base - entries_.data()) + (base->end <= a);
  }

  // Makes entries exactly tile [b, e); returns the index of the one starting at b.
  std::size_t tile(Addr b, Addr e) {
    std::size_t i = first_ending_after(b);
    if (i < entries_.size() && entries_[i].start < b) {
      split(i, b);
      ++i;
    }
    const std::size_t first = i;
    for (Addr pos = b; pos < e; ++i) {
      if (i == entries_.size() || entries_[i].start > pos) {
        CellT gap;
        gap.end = i == entries_.size() ? e : std::min(e, entries_[i].start);
        const Addr gap_end = gap.end;
        insert(i, pos, gap_end, std::move(gap));
      }
      if (entries_[i].end > e) split(i, e);
      pos = entries_[i].end;
    }
    return first;
  }

  // Folds each entry of [first, last) that equals the one before it into that one.
  void merge_equal(std::size_t first, std::size_t last) {
    std::size_t keep = first;  // the entry the next equal one folds into
    std::size_t out = first + 1;
    for (std::size_t i = first + 1; i < last; ++i) {
      Entry& k = entries_[keep];
      const Entry en = entries_[i];
      if (en.start == k.end && ops_.same(cells_[k.slot], cells_[en.slot])) {
        k.end = en.end;
        cells_[k.slot].end = en.end;
        ops_.erased(cells_[en.slot]);
        free_slots_.push_back(en.slot);
      } else {
        entries_[out] = en;
        keep = out++;
      }
    }
    if (out != last) {
      entries_.erase(entries_.begin() + std::ptrdiff_t(out), entries_.begin() + std::ptrdiff_t(last));
    }
  }

  std::vector<Entry> entries_;  // sorted by start, disjoint
  std::vector<CellT> cells_;    // by slot; free slots are reused
  std::vector<std::uint32_t> free_slots_;
  Ops ops_;
};

}  // namespace allocsim::race
