// The host costs of HIP-backend trials as hw::CostSamples (host_cold_fit.h): one kind per
// platform field a host call or a release's bookkeeping is charged as, each sample stamped with the
// time since the host last woke. Calibration fits the profile to them; validation measures, per
// program, how much slower its host ran after a wake-up.
#pragma once
#include <vector>

#include "allocsim/hw/host_cold_fit.h"
#include "allocsim/hw/hw_device.h"

namespace allocsim::hw {

/// Which wake-up a sample is timed from.
enum class WokeFrom {
  Sleep,  // a sleep on a condition variable or mutex (TrialStats::call_since_sleep): what the model has
  // A synchronize's poll (TrialStats::call_since_poll), of the samples with no sleep within
  // kColdHorizonNs before them: the other kind of wait, measured apart to show what it does.
  Poll,
};

/// Empty kinds: the host calls that have a platform field (host_calls.h), then
/// release_bookkeeping_ns. Launches are estimated by their median (CostSamples::by_median).
std::vector<CostSamples> host_cost_kinds();

/// Appends `trial`'s samples to `kinds` (host_cost_kinds' order), timed from `from`.
void add_trial_samples(std::vector<CostSamples>& kinds, const TrialStats& trial, WokeFrom from);

}  // namespace allocsim::hw
