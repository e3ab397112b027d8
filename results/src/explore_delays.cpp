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

void join(Clock& into, const Clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

/// `b` is still to come when `a` starts: holding `a` until a step already done is no delay.
bool ends_after_start(const StepRecord& b, std::size_t j, const StepRecord& a, std::size_t i) {
  return b.end > a.start || (b.end == a.start && j > i);
}

}  // namespace

bool conflict(const StepRecord& a, const StepRecord& b) {
  for (const StepObject& x : a.touched)
    for (const StepObject& y : b.touched)
      if ((x.write || y.write) && same_object(x, y)) return true;
  return false;
}

DelayChoices delays_of(const StepTrace& trace, std::size_t from, bool prune) {
  DelayChoices out;
  const std::vector<StepRecord>& steps = trace.steps;
  const std::size_t n = steps.size();
  // Plain enumeration: every feasible delay (b ends after a starts, and did not happen after a).
  std::vector<StepHold> plain;
  for (std::size_t i = from; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const StepRecord &a = steps[i], &b = steps[j];
      if (b.agent == a.agent || !ends_after_start(b, j, a, i) || contains(b.clock_end, a)) continue;
      ++out.feasible;
      if (!prune) plain.push_back(StepHold{a.ref, b.ref});
    }
  if (!prune) {
    out.kept = std::move(plain);
    return out;
  }
  // Pruned: the races of the trace, as in DPOR. The trace's happens-before is the run's own
  // (program order and synchronisation: the steps' clocks) plus every conflict, in start order.
  // Steps a < b race when they conflict, belong to different agents, and nothing but their own
  // conflict orders them; only reversing a race can change the outcome (reversing a pair that
  // another conflict already orders needs that one reversed first: another delay).
  std::vector<Clock> full(n);            // each step's clock in that happens-before
  std::vector<std::int64_t> prev(n, -1);  // the same agent's step before
  std::vector<std::int64_t> last_of;      // per agent
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t g = steps[i].agent;
    if (last_of.size() <= g) last_of.resize(g + 1, -1);
    prev[i] = last_of[g];
    last_of[g] = std::int64_t(i);
  }
  std::vector<std::pair<std::size_t, std::size_t>> races;
  std::vector<std::size_t> earlier;  // the steps before b that conflict with it
  for (std::size_t j = 0; j < n; ++j) {
    const StepRecord& b = steps[j];
    Clock base = b.clock_end;
    if (prev[j] >= 0) join(base, full[std::size_t(prev[j])]);
    earlier.clear();
    if (!b.touched.empty())
      for (std::size_t c = 0; c < j; ++c)
        if (conflict(steps[c], b)) earlier.push_back(c);
    Clock seen = base;  // what happened before b through conflicts later than the one looked at
    for (auto it = earlier.rbegin(); it != earlier.rend(); ++it) {
      const StepRecord& a = steps[*it];
      if (a.agent != b.agent && !contains(seen, a) && *it >= from && ends_after_start(b, j, a, *it))
        races.emplace_back(*it, j);
      join(seen, full[*it]);
    }
    full[j] = std::move(seen);
  }
  std::sort(races.begin(), races.end());
  for (const auto& [i, j] : races) out.kept.push_back(StepHold{steps[i].ref, steps[j].ref});
  return out;
}

std::size_t position_of(const StepTrace& trace, const StepRef& ref) {
  for (std::size_t i = 0; i < trace.steps.size(); ++i)
    if (trace.steps[i].ref == ref) return i;
  return 0;
}

}  // namespace allocsim::explore_detail
