// run_one: one scenario under one policy and guard, from a RunConfig, in the simulator. Used by
// `allocsim run` and by every sweep job, so it keeps no global state: it builds its own policy,
// guard and options each call and is safe to call from several threads at once (each on its own
// RunConfig; the Scenario is only read).
#pragma once
#include <functional>
#include <vector>

#include "allocsim/core/observer.h"
#include "allocsim/core/result.h"
#include "allocsim/core/scenario.h"
#include "allocsim/engine/simulate.h"
#include "allocsim/results/resolve.h"
#include "allocsim/results/run_config.h"

namespace allocsim {

/// Run it. Throws RunInputError for bad input (unknown policy or guard: the message lists the
/// valid names). Run-time conditions (deadlock, OOM, races) are results, never exceptions.
/// The result's scenario/policy/guard/semaphore/seed are the resolved values.
/// `adjust` (optional) changes the resolved options last, e.g. a sample's seed and spread.
RunResult run_one(const Scenario& scenario, const RunConfig& config, std::vector<Observer*> extra = {},
                  const std::function<void(SimOptions&)>& adjust = {});

/// Throws what run_one throws for bad input, without running. Commands whose runs are jobs of the
/// farm call it on every rank first, so under mpirun every rank exits 2 on a bad name, not only
/// the one a failed job reaches.
void check_run_config(const Scenario& scenario, const RunConfig& config);

}  // namespace allocsim
