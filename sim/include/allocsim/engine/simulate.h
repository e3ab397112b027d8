// Run one scenario under one free policy and guard in virtual time (the sim backend).
#pragma once
#include <cstdint>
#include <vector>

#include "allocsim/core/chooser.h"
#include "allocsim/core/observer.h"
#include "allocsim/core/platform_spread.h"
#include "allocsim/core/policy.h"
#include "allocsim/core/result.h"
#include "allocsim/core/scenario.h"
#include "allocsim/engine/step_schedule.h"

namespace allocsim {

struct SimOptions {
  int semaphore = 32;         // compute semaphore capacity
  std::uint64_t seed = 1;
  Params params;              // scenario params overlaid with --set values
  PlatformProfile platform;   // costs (scenario's, or a calibrated --platform file)
  /// Non-null: every cost is drawn from its distribution here (the --platform file's "spread"),
  /// through the chooser, instead of charged at the profile's value. The caller keeps it alive.
  const PlatformSpread* spread = nullptr;
  bool detect_races = true;   // --no-races turns the race detector off
  std::size_t max_findings = 20;
  bool findings_to_stderr = false;  // readable two-line form per finding
  std::vector<Observer*> observers;  // extra observers (trace writer, tests)
  std::uint64_t max_events = 0;      // 0 = unbounded; a bound turns a livelock into an error
  /// Every random choice of the run (durations, injected failures). nullptr: a seeded chooser from
  /// `seed`. A schedule explorer (docs/design.md section 10) passes its own.
  Chooser* chooser = nullptr;
  /// A schedule's delays (docs/explore.md): each holds a step until another agent's is done.
  std::vector<StepHold> holds;
  /// Non-null: the run's steps, what they touched and their clocks (for `allocsim explore`).
  StepTrace* trace = nullptr;
  /// Non-null: what became of each hold, in the order of `holds`.
  std::vector<HoldOutcome>* hold_outcomes = nullptr;
};

/// Deterministic: same scenario, policy, guard and options -> identical result and observer calls.
/// Never throws for run-time conditions (deadlock, OOM, lifetime violations): they are results.
RunResult simulate(const Scenario& scenario, FreePolicy& policy, Guard& guard, const SimOptions& options);

}  // namespace allocsim
