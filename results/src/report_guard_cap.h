// What caps the deferring policies' growth with the semaphore (private to results/src): for each
// guard, the deferring policies' peak in-use at the largest swept capacity against guard `none`,
// and the host blocking under the guard that explains a lower peak. Computed from the model only;
// report_markdown.cpp words it as a verdict sentence.
#pragma once
#include <string>
#include <vector>

#include "report_model.h"

namespace allocsim::results::detail {

/// One guard under which every deferring policy's race-free option stays below all of them with
/// `none`, and under which the host blocks longer than with `none`. Ranges are over those options
/// at the reference capacity, of their means over seeds; blocking is per run, each option against
/// the same policy with `none`.
struct GuardCap {
  std::string guard;
  double in_use_lo = 0, in_use_hi = 0;  // bytes
  // Where the host blocks longer than with `none`: in the policy's and guard's own waits
  // (RunMeasures::host_blocked_policy_ns), or, when those add nothing, in the program's own syncs
  // (host_blocked_sync_ns: a guard can make them wait for compute without blocking the host itself).
  enum class Cause { OwnWaits, ProgramSyncs } cause = Cause::OwnWaits;
  double blocked_lo = 0, blocked_hi = 0;  // ns per run more than with `none`
};

struct GuardCaps {
  int low_sem = 0, sem = 0;  // the smallest and the largest swept capacity
  // Policies that defer frees: there is no such flag in the results, so it is read from the data.
  // A policy defers when its option with guard `none` is race-free and its peak in-use (mean over
  // seeds) is larger at the largest swept capacity than at the smallest: frees it withholds pile up
  // as the host runs further ahead. Sweep order.
  std::vector<std::string> deferring;
  double none_lo = 0, none_hi = 0;  // their peak in-use with `none` at `sem`, bytes
  std::vector<GuardCap> caps;       // sweep order of the guards; empty = no guard caps them
};

/// Empty `caps` when fewer than two capacities were swept, host blocking was not measured, the
/// sweep has no guard `none` or no deferring policy, or no guard both lowers the peak and blocks.
GuardCaps guard_caps(const ScenarioModel& m);

inline constexpr const char* kNoGuard = "none";

}  // namespace allocsim::results::detail
