// PlanExecutor: step order of a host thread (see the header).
#include "allocsim/engine/plan_executor.h"

#include <iterator>

namespace allocsim {

void PlanExecutor::append(Plan plan) {
  steps_.insert(steps_.end(), std::make_move_iterator(plan.begin()), std::make_move_iterator(plan.end()));
}

std::optional<Step> PlanExecutor::next(Backend& backend) {
  Step step = std::move(steps_.front());
  steps_.pop_front();
  if (step.kind != Step::Kind::Do) return step;
  Plan follow_up;
  if (step.fn) step.fn(backend, follow_up);
  steps_.insert(steps_.begin(), std::make_move_iterator(follow_up.begin()),
                std::make_move_iterator(follow_up.end()));
  return std::nullopt;
}

}  // namespace allocsim
