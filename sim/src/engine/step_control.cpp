// Holds and the step trace of a run (step_control.h).
#include "step_control.h"

#include <algorithm>

namespace allocsim {
namespace {

void join(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

}  // namespace

StepControl::StepControl(std::vector<StepHold> holds, StepTrace* trace)
    : outcomes_(holds.size()), trace_(trace), active_(trace || !holds.empty()) {
  holds_.reserve(holds.size());
  for (StepHold& h : holds) holds_.push_back(Hold{std::move(h)});
}

std::vector<std::uint32_t>& StepControl::clock(AgentId a) {
  const std::size_t i = std::size_t(a);
  if (clocks_.size() <= i) {
    clocks_.resize(i + 1);
    data_clocks_.resize(i + 1);
    open_.resize(i + 1, -1);
    last_.resize(i + 1, -1);
  }
  return clocks_[i];
}

bool StepControl::begin(const StepRef& ref, AgentId a, TimeNs now) {
  if (!active_) return false;
  // Asked again for a step that already started (a callback whose body then waited for a mutex).
  if (trace_ && std::size_t(a) < open_.size() && open_[std::size_t(a)] >= 0 &&
      trace_->steps[std::size_t(open_[std::size_t(a)])].ref == ref)
    return false;
  bool wait = false;
  for (std::size_t i = 0; i < holds_.size(); ++i) {
    Hold& h = holds_[i];
    if (!(h.spec.hold == ref)) continue;
    if (h.state == State::Waiting) wait = true;
    if (h.state != State::Pending) continue;
    outcomes_[i].reached = true;
    if (h.until_done) {
      h.state = State::Passed;
      continue;
    }
    h.state = State::Waiting;
    h.agent = a;
    h.since = now;
    outcomes_[i].waited = true;
    wait = true;
  }
  if (!wait) record_start(ref, a, now);
  return wait;
}

void StepControl::record_start(const StepRef& ref, AgentId a, TimeNs now) {
  if (!trace_) return;
  std::vector<std::uint32_t>& c = clock(a);
  if (c.size() <= std::size_t(a)) c.resize(std::size_t(a) + 1, 0);
  StepRecord r;
  r.ref = ref;
  r.start = r.end = now;
  r.agent = std::uint32_t(a);
  r.epoch = ++c[std::size_t(a)];
  std::vector<std::uint32_t>& d = data_clocks_[std::size_t(a)];
  if (d.size() <= std::size_t(a)) d.resize(std::size_t(a) + 1, 0);
  d[std::size_t(a)] = r.epoch;
  open_[std::size_t(a)] = std::int64_t(trace_->steps.size());
  trace_->steps.push_back(std::move(r));
}

void StepControl::end_wait(Hold& h, std::size_t i, TimeNs now, bool quiescence, std::vector<StepRef>& woken) {
  h.state = State::Passed;
  outcomes_[i].held_ns = now - h.since;
  outcomes_[i].quiescence = quiescence;
  // Another hold on the same step may still keep it waiting.
  for (const Hold& o : holds_)
    if (o.spec.hold == h.spec.hold && o.state == State::Waiting) return;
  record_start(h.spec.hold, h.agent, now);
  woken.push_back(h.spec.hold);
}

std::vector<StepRef> StepControl::done(const StepRef& ref, AgentId a, TimeNs now) {
  std::vector<StepRef> woken;
  if (!active_) return woken;
  if (trace_) {
    clock(a);
    const std::int64_t at = open_[std::size_t(a)];
    if (at >= 0) {
      StepRecord& r = trace_->steps[std::size_t(at)];
      r.end = now;
      r.clock_end = clocks_[std::size_t(a)];
      r.data_clock_end = data_clocks_[std::size_t(a)];
      last_[std::size_t(a)] = at;
      open_[std::size_t(a)] = -1;
    }
  }
  for (std::size_t i = 0; i < holds_.size(); ++i) {
    Hold& h = holds_[i];
    if (!(h.spec.until == ref)) continue;
    h.until_done = true;
    if (h.state == State::Waiting) end_wait(h, i, now, false, woken);
  }
  return woken;
}

std::vector<StepRef> StepControl::end_all_waits(TimeNs now) {
  std::vector<StepRef> woken;
  for (std::size_t i = 0; i < holds_.size(); ++i)
    if (holds_[i].state == State::Waiting) end_wait(holds_[i], i, now, true, woken);
  return woken;
}

void StepControl::touch(AgentId a, const StepObject& o) {
  if (!trace_) return;
  clock(a);
  std::int64_t at = open_[std::size_t(a)];
  if (at < 0) at = last_[std::size_t(a)];
  if (at < 0) return;  // before the agent's first step: nothing can be reordered against it
  trace_->steps[std::size_t(at)].touched.push_back(o);
}

namespace {
// A mutex's or the semaphore's hand-over orders its two agents only because of who got there
// first: a decision the explorer reverses through their conflict, not an order a hold must wait
// for. Like the pool's lock, it orders data accesses (data clocks) but not steps (clocks).
bool reversible(std::uint64_t key) {
  const std::uint64_t kind = key >> 56;
  return kind == std::uint64_t(SyncKind::Mutex) || kind == std::uint64_t(SyncKind::Semaphore);
}
}  // namespace

void StepControl::release(AgentId a, std::uint64_t key) {
  if (!trace_) return;
  clock(a);
  join(data_released_[key], data_clocks_[std::size_t(a)]);
  if (reversible(key)) return;
}

void StepControl::acquire(AgentId a, std::uint64_t key) {
  if (!trace_) return;
  clock(a);
  if (const auto d = data_released_.find(key); d != data_released_.end()) join(data_clocks_[std::size_t(a)], d->second);
  const auto it = released_.find(key);
  if (it == released_.end()) return;
  std::vector<std::uint32_t> from = it->second;  // clock(a) may grow the table it points into
  join(clock(a), from);
}

void StepControl::pool_call(AgentId a, std::uint64_t pool) {
  if (!trace_) return;
  clock(a);
  std::vector<std::uint32_t>& d = data_clocks_[std::size_t(a)];
  std::vector<std::uint32_t>& last = pool_last_[pool];
  join(d, last);
  last = d;
}

}  // namespace allocsim
