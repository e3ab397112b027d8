// The sim backend's schedule holds (docs/explore.md; bookkeeping in step_control.h): where the
// host, a stream and the callback thread ask whether a step may start, and how a held agent is
// woken when its hold ends. The streams' and the callback thread's own hooks are in
// sim_device_streams.cpp (advance, op_end, callback_try, callback_done).
#include "allocsim/engine/interpreter.h"
#include "sim_device.h"

namespace allocsim {

bool SimDevice::host_step_held(std::size_t index) {
  host_.op_open = true;
  host_.op_index = index;
  if (!steps_.begin(StepRef{StepAgent::Host, kNoStream, index}, kHostAgent, host_.now)) return false;
  host_.cause = HostThread::Cause::Sync;  // a delay the schedule put there, not the policy's wait
  host_block(HostWait::Hold, kNever);
  return true;
}

void SimDevice::host_step_done() {
  if (!host_.op_open) return;
  host_.op_open = false;
  wake_held(steps_.done(StepRef{StepAgent::Host, kNoStream, host_.op_index}, kHostAgent, host_.now));
}

void SimDevice::wake_held(const std::vector<StepRef>& steps) {
  // Queued, not run here: the step that ended them may be in the middle of a stream's advance or
  // a callback's body.
  for (const StepRef& r : steps) {
    hold_wakes_.push_back(r);
    queue_.push(std::max(now_, current_ == Agent::Callback ? cb_.now : now_), kHoldEnd, 0,
                hold_wakes_.size() - 1);
  }
}

void SimDevice::hold_end(const StepRef& step) {
  switch (step.agent) {
    case StepAgent::Host:
      if (host_.wait == HostWait::Hold) host_wake(now_);
      break;
    case StepAgent::Stream:
      kick(step.stream, now_);
      break;
    case StepAgent::Callback:
      callback_try();
      break;
  }
}

bool SimDevice::end_held_steps() {
  const std::vector<StepRef> woken = steps_.end_all_waits(now_);
  wake_held(woken);
  return !woken.empty();
}

}  // namespace allocsim
