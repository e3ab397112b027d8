// Shadow memory: the access history of every byte range of the pools' address space, for the race
// detector (an IntervalMap, interval_map.h, of Cells).
//
// Per cell, FastTrack-style: the last write as one epoch (agent, clock) plus what the finding needs
// (allocation, op, time); the reads since that write, usually one epoch (a small set only while
// reads are concurrent); and the overwritten writes not ordered before their overwriter and not yet
// ordered before a later write (racers: more latent pairs than the last write alone finds). The
// manifest check's "own last write" is kept per allocation (detector_state.h, AllocHot::own_writes),
// so no number of later writers by other allocations can evict it. The pool lock's clocks are kept
// apart (pool_lock.h): they change at frees, not accesses, so cells that an allocation's write made
// equal merge at once instead of staying apart until the chunk's free.
#pragma once
#include <cstdint>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "allocsim/core/types.h"
#include "interval_map.h"
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
  boost::container::small_vector<AccessRec, 2> reads;  // reads since last_write (not ordered among them)
  std::vector<AccessRec> racers;  // overwritten writes not ordered before their overwriter (empty unless racing)
};

struct AccessCellOps {
  void split(Cell&, Cell&) {}
  bool same(const Cell& a, const Cell& b) const {
    if (!(a.last_write == b.last_write) || a.reads.size() != b.reads.size() || a.racers != b.racers) return false;
    for (std::size_t i = 0; i < a.reads.size(); ++i)
      if (!(a.reads[i] == b.reads[i])) return false;
    return true;
  }
  void erased(Cell&) {}
};

using ShadowMemory = IntervalMap<Cell, AccessCellOps>;

}  // namespace allocsim::race
