// The pool's lock as happens-before (DESIGN.md section 3): a pool free publishes the freeing
// agent's clock on the freed bytes, and an allocation that overlaps them acquires every clock
// published there. Kept per byte range in its own IntervalMap (interval_map.h), apart from the
// access history: it changes only at frees and is read only at allocations.
#pragma once
#include <cstdint>

#include "allocsim/core/types.h"
#include "interval_map.h"
#include "vector_clock.h"

namespace allocsim::race {

struct LockCell {
  Addr end = 0;
  std::int32_t clock = ClockPool::kNone;  // join of the clocks of the frees of these bytes
};

struct LockCellOps {
  ClockPool* clocks = nullptr;
  void split(LockCell&, LockCell& upper) {
    if (upper.clock != ClockPool::kNone) upper.clock = clocks->make(clocks->at(upper.clock));
  }
  bool same(const LockCell& a, const LockCell& b) const {
    if (a.clock == ClockPool::kNone || b.clock == ClockPool::kNone) return a.clock == b.clock;
    return clocks->at(a.clock) == clocks->at(b.clock);
  }
  void erased(LockCell& c) {
    if (c.clock != ClockPool::kNone) clocks->drop(c.clock);
  }
};

class PoolLock {
 public:
  PoolLock() : cells_(LockCellOps{&clocks_}) {}
  PoolLock(const PoolLock&) = delete;
  PoolLock& operator=(const PoolLock&) = delete;

  using Hint = IntervalMap<LockCell, LockCellOps>::Hint;

  /// An allocation of `r` by the agent whose clock is `vc`. `hint` is then kept for its free.
  void acquire(AddrRange r, Hint& hint, VectorClock& vc) {
    cells_.for_each(r, hint, [&](LockCell& c, Addr, Addr) {
      if (c.clock != ClockPool::kNone) vc.join(clocks_.at(c.clock));
    });
  }
  /// A free of `r` by the agent whose clock is `vc`. Frees usually leave a chunk's cells equal
  /// (the freer's clock dominates older frees' clocks): they are merged.
  void release(AddrRange r, Hint& hint, const VectorClock& vc) {
    cells_.for_each(
        r, hint,
        [&](LockCell& c, Addr, Addr) {
          if (c.clock == ClockPool::kNone) c.clock = clocks_.make(vc);
          else clocks_.at(c.clock).join(vc);
        },
        /*merge=*/true);
  }
  std::size_t cell_count() const { return cells_.cell_count(); }

 private:
  ClockPool clocks_;
  IntervalMap<LockCell, LockCellOps> cells_;
};

}  // namespace allocsim::race
