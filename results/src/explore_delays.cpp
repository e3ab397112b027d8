// See explore_delays.h.
#include "explore_delays.h"

#include <algorithm>

namespace allocsim::explore_detail {
namespace {

using Clock = std::vector<std::uint32_t>;

bool same_object(const StepObject& x, const StepObject& y) {
  if (x.kind != y.kind) return false;
  if (x.kind == StepObject::Kind::Memory) return x.id < y.end && y.id < x.end;
  return x.id == y.id;
}

bool contains(const Clock& c, const StepRecord& a) { return a.agent < c.size() && c[a.agent] >= a.epoch; }


/// `b` is still to come when `a` starts: holding `a` until a step already done is no delay.
bool ends_after_start(const StepRecord& b, std::size_t j, const StepRecord& a, std::size_t i) {
  return b.end > a.start || (b.end == a.start && j > i);
}

}  // namespace

bool open_conflict(const StepRecord& a, const StepRecord& b) {
  const bool data_ordered = contains(b.data_clock_end, a);
  for (const StepObject& x : a.touched)
    for (const StepObject& y : b.touched)
      if ((x.write || y.write) && same_object(x, y) && !(x.kind == StepObject::Kind::Memory && data_ordered)) return true;
  return false;
}


DelayChoices delays_of(const StepTrace& trace, std::size_t from, bool prune) {
  DelayChoices out;
  const std::vector<StepRecord>& steps = trace.steps;
  const std::size_t n = steps.size();
  std::vector<std::uint32_t> agents_done;
  for (std::size_t i = from; i < n; ++i) {
    const StepRecord& a = steps[i];
    agents_done.clear();
    for (std::size_t j = 0; j < n; ++j) {
      const StepRecord& b = steps[j];
      if (b.agent == a.agent || !ends_after_start(b, j, a, i) || contains(b.clock_end, a)) continue;
      ++out.feasible;
      if (!prune) {
        out.kept.push_back(StepHold{a.ref, b.ref});
        continue;
      }
      // Only the first step of each other agent that conflicts with `a`: the steps before it
      // commute with `a`, and holding `a` past that agent's next conflicting step is another
      // delay on the same step (docs/explore.md, "pruning").
      if (std::find(agents_done.begin(), agents_done.end(), b.agent) != agents_done.end() || !open_conflict(a, b))
        continue;
      agents_done.push_back(b.agent);
      out.kept.push_back(StepHold{a.ref, b.ref});
    }
  }
  return out;
}

std::size_t position_of(const StepTrace& trace, const StepRef& ref) {
  for (std::size_t i = 0; i < trace.steps.size(); ++i)
    if (trace.steps[i].ref == ref) return i;
  return 0;
}

}  // namespace allocsim::explore_detail
