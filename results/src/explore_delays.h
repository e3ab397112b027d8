// Which delays a traced run offers the explorer (docs/explore.md): a delay holds step `a` until a
// step `b` of another agent is done. It is feasible when `b` ends after `a` starts and `b` did not
// happen after `a` (else `b` would wait for `a`, and the hold would only end when nothing else
// can happen). Pruning keeps, for each held step and each other agent, the hold until that
// agent's first step that conflicts with it (docs/explore.md, "pruning").
#pragma once
#include <cstdint>
#include <vector>

#include "allocsim/engine/step_schedule.h"

namespace allocsim::explore_detail {

/// `a` and `b` touch one object and one of them changes it; bytes count only while the pool's
/// order of calls leaves the two accesses unordered (StepRecord::data_clock_end).
bool open_conflict(const StepRecord& a, const StepRecord& b);

struct DelayChoices {
  std::vector<StepHold> kept;   // in trace order of the held step, then of `until`
  std::uint64_t feasible = 0;   // every feasible delay (plain enumeration's choices)
};

/// The delays of `trace` whose held step is at position `from` or later, in trace order. `prune`:
/// only each other agent's first open conflict; else every feasible delay.
DelayChoices delays_of(const StepTrace& trace, std::size_t from, bool prune);

/// The position of `ref` in `trace` (0 when it is not there).
std::size_t position_of(const StepTrace& trace, const StepRef& ref);

}  // namespace allocsim::explore_detail
