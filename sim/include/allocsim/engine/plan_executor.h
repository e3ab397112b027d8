// PlanExecutor: the order in which a host thread carries out Plans, shared by both backends.
//
// Why it exists: a policy's Plan means the same on the simulator and on the GPU only if both run
// its steps the same way: in order, each Do step at once, the steps a Do step returns before the
// steps that followed it. That part lives here. A Wait step is handed back for the backend to
// carry out, because blocking is what differs: the simulator suspends its host thread in virtual
// time (and so must be able to stop between any two steps), the HIP backend blocks for real.
#pragma once
#include <deque>
#include <optional>

#include "allocsim/core/backend.h"

namespace allocsim {

class PlanExecutor {
 public:
  bool empty() const { return steps_.empty(); }
  /// Queue `plan`'s steps after those still queued.
  void append(Plan plan);
  /// Takes the next step. A Do step runs now on `backend` (its follow-up steps are queued first)
  /// and nullopt comes back; any other step comes back for the backend to carry out.
  std::optional<Step> next(Backend& backend);

 private:
  std::deque<Step> steps_;
};

}  // namespace allocsim
