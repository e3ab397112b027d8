// The pool's lock as happens-before (docs/design.md section 3): a pool free publishes the freeing
// agent's clock on the freed bytes, and an allocation that overlaps them acquires every clock
// published there.
//
// How it is kept, exactly but cheaply. One agent's clocks only grow, so of all frees by agent A
// that covered a byte only A's latest one matters, and the join over a range is, per agent, A's
// clock at the largest "free epoch" (A's own clock component at that free) over the range. So per
// freeing agent there is an IntervalMap (interval_map.h) of plain epochs, set over the freed
// range at each free, plus A's clock snapshots by epoch, a new one only when A's clock changed
// other than by its own ticks (VectorClock::changes). A free is then an epoch store over the range
// (its cells become one); an allocation by X looks at agent A only if X does not already hold A's
// latest free epoch, and joins one snapshot per such agent. A clock per byte range (the earlier
// form) made each free copy, join and compare clocks per cell: a quarter of the detector's cost on
// training-churn. Snapshots no byte refers to any more are dropped from time to time.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "allocsim/core/types.h"
#include "interval_map.h"
#include "vector_clock.h"

namespace allocsim::race {

class PoolLock {
 public:
  PoolLock() = default;
  PoolLock(const PoolLock&) = delete;
  PoolLock& operator=(const PoolLock&) = delete;

  /// An allocation of `r` by the agent whose clock is `vc`: joins the clocks of the frees of
  /// these bytes that it is not already ordered after.
  void acquire(AddrRange r, VectorClock& vc) {
    for (std::size_t a = 0; a < agents_.size(); ++a) {
      Freer& f = agents_[a];
      if (f.latest == 0 || vc.get(AgentId(a)) >= f.latest) continue;  // ordered after all of a's frees
      Clock e = 0;
      f.epochs->visit_overlapping(r, [&](const EpochCell& c) { e = std::max(e, c.epoch); });
      if (e == 0 || vc.get(AgentId(a)) >= e) continue;
      // a's clock at its free with epoch e: the latest snapshot taken at or before it, own part e
      auto it = std::upper_bound(f.snapshots.begin(), f.snapshots.end(), e,
                                 [](Clock v, const Snapshot& s) { return v < s.from; });
      vc.join(clocks_.at(std::prev(it)->slot));
      vc.raise(AgentId(a), e);
    }
  }

  /// A free of `r` by agent `a` whose clock is `vc` (before its tick).
  void release(AddrRange r, AgentId a, const VectorClock& vc) {
    if (std::size_t(a) >= agents_.size()) agents_.resize(std::size_t(a) + 1);
    Freer& f = agents_[std::size_t(a)];
    if (!f.epochs) f.epochs = std::make_unique<IntervalMap<EpochCell, EpochOps>>();
    const Clock e = vc.get(a);
    if (f.snapshots.empty() || f.changes != vc.changes()) {
      if (f.snapshots.size() >= 2 * f.epochs->cell_count() + 64) collect(f);
      f.snapshots.push_back({e, clocks_.make(vc)});
      f.changes = vc.changes();
    }
    f.latest = e;
    f.epochs->assign(r, {}, [e](EpochCell& c) { c.epoch = e; });
  }

  /// Every pool free so far is ordered before an agent whose clock is `vc`.
  bool ordered_after_all_frees(const VectorClock& vc) const {
    for (std::size_t a = 0; a < agents_.size(); ++a)
      if (vc.get(AgentId(a)) < agents_[a].latest) return false;
    return true;
  }

 private:
  struct EpochCell {
    Addr end = 0;
    Clock epoch = 0;  // 0: never freed by this agent
  };
  struct EpochOps {
    void split(EpochCell&, EpochCell&) {}
    bool same(const EpochCell& a, const EpochCell& b) const { return a.epoch == b.epoch; }
    void erased(EpochCell&) {}
  };
  struct Snapshot {
    Clock from;          // the free epoch it was taken at; valid until the next one's
    std::int32_t slot;   // in clocks_
  };
  struct Freer {
    std::unique_ptr<IntervalMap<EpochCell, EpochOps>> epochs;
    std::vector<Snapshot> snapshots;  // increasing `from`
    std::uint32_t changes = 0;        // the agent clock's changes() at the last snapshot
    Clock latest = 0;                 // epoch of the agent's latest free (0: none)
  };

  // Drops the snapshots that no epoch in the map falls into (keeps the newest: the next free's).
  void collect(Freer& f) {
    std::vector<Clock> live;
    f.epochs->visit_all([&](const EpochCell& c) {
      if (c.epoch != 0) live.push_back(c.epoch);
    });
    std::sort(live.begin(), live.end());
    std::vector<Snapshot> kept;
    std::size_t j = 0;
    for (std::size_t i = 0; i < f.snapshots.size(); ++i) {
      const Clock until = i + 1 < f.snapshots.size() ? f.snapshots[i + 1].from : ~Clock(0);
      while (j < live.size() && live[j] < f.snapshots[i].from) ++j;
      const bool used = (j < live.size() && live[j] < until) || i + 1 == f.snapshots.size();
      if (used) kept.push_back(f.snapshots[i]);
      else clocks_.drop(f.snapshots[i].slot);
    }
    f.snapshots = std::move(kept);
  }

  ClockPool clocks_;
  std::vector<Freer> agents_;  // by freeing agent
};

}  // namespace allocsim::race
