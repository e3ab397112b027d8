// Which delays a traced run offers the explorer (docs/explore.md): a delay holds step `a` until a
// step `b` of another agent is done. It is feasible when `b` ends after `a` starts and `b` did not
// happen after `a` (else `b` would wait for `a`, and the hold would only end when nothing else
// can happen). Pruning keeps only the races of the trace, as DPOR does: two steps of different
// agents that conflict and that no other conflict or synchronisation already orders.
#pragma once
#include <cstdint>
#include <vector>

#include "allocsim/engine/step_schedule.h"

namespace allocsim::explore_detail {

/// Two steps touch one object and one of them changes it (bytes: overlapping ranges).
bool conflict(const StepRecord& a, const StepRecord& b);

struct DelayChoices {
  std::vector<StepHold> kept;   // in trace order of the held step, then of `until`
  std::uint64_t feasible = 0;   // every feasible delay (plain enumeration's choices)
};

/// The delays of `trace` whose held step is at position `from` or later. `prune`: only the
/// races (held step, until step) are kept, in trace order; else every feasible delay.
DelayChoices delays_of(const StepTrace& trace, std::size_t from, bool prune);

/// The position of `ref` in `trace` (0 when it is not there).
std::size_t position_of(const StepTrace& trace, const StepRef& ref);

}  // namespace allocsim::explore_detail
