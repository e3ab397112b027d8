// The sim backend's side of schedule exploration (docs/explore.md): it applies a schedule's holds
// (a step waits until another agent's step is done) and, when asked, traces the run's steps with
// what each touched and its agent's vector clock, from which the explorer decides which steps
// conflict and which happened after which. Pure bookkeeping: SimDevice (sim_device*.cpp) asks it
// whether a step may start, tells it when one is done, and wakes the agents it names.
//
// The clocks are kept here, not taken from the race detector, because the explorer needs them per
// step and on runs without race detection; they follow the same release/acquire edges.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "allocsim/core/observer.h"
#include "allocsim/engine/step_schedule.h"

namespace allocsim {

class StepControl {
 public:
  /// `trace` (optional) receives every step; nothing is kept when it is null and there are no holds.
  StepControl(std::vector<StepHold> holds, StepTrace* trace);

  bool active() const { return active_; }

  /// `ref` (taken by agent `a`) is about to start at `now`: true if a hold makes it wait. The
  /// step's start is recorded now, or when the hold ends.
  bool begin(const StepRef& ref, AgentId a, TimeNs now);
  /// `ref` is done at `now`. Returns the held steps whose wait this ends (the agents to wake).
  std::vector<StepRef> done(const StepRef& ref, AgentId a, TimeNs now);
  /// Nothing else can happen: every waiting hold ends now. Returns the steps to wake.
  std::vector<StepRef> end_all_waits(TimeNs now);

  /// The agent's current step touched `o` (steps outside a step count to the agent's last one).
  void touch(AgentId a, const StepObject& o);
  void release(AgentId a, std::uint64_t key);
  void acquire(AgentId a, std::uint64_t key);
  /// A pool call by `a`: ordered after the pool's previous call, in the data clocks only.
  void pool_call(AgentId a, std::uint64_t pool);

  const std::vector<HoldOutcome>& outcomes() const { return outcomes_; }

 private:
  enum class State : std::uint8_t { Pending, Waiting, Passed };
  struct Hold {
    StepHold spec;
    State state = State::Pending;
    bool until_done = false;
    AgentId agent = 0;
    TimeNs since = 0;
  };
  std::vector<std::uint32_t>& clock(AgentId a);
  void record_start(const StepRef& ref, AgentId a, TimeNs now);
  void end_wait(Hold& h, std::size_t i, TimeNs now, bool quiescence, std::vector<StepRef>& woken);

  std::vector<Hold> holds_;
  std::vector<HoldOutcome> outcomes_;
  StepTrace* trace_;
  bool active_;
  std::vector<std::vector<std::uint32_t>> clocks_, data_clocks_;  // per agent
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> released_, data_released_;  // per sync key
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> pool_last_;  // per pool: its last call's data clock
  std::vector<std::int64_t> open_;                              // per agent: its step in the trace, or -1
  std::vector<std::int64_t> last_;                              // per agent: its last step, or -1
};

}  // namespace allocsim
