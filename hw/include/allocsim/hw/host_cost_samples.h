// The host costs of HIP-backend trials as hw::CostSamples (host_cold_fit.h): one kind per
// platform field a host call or a release's bookkeeping is charged as, each sample stamped with the
// time since the host last woke from a sleep. Calibration fits the profile to them; validation
// checks each program's against the profile.
#pragma once
#include <vector>

#include "allocsim/hw/host_cold_fit.h"
#include "allocsim/hw/hw_device.h"

namespace allocsim::hw {

/// Empty kinds: the host calls that have a platform field (host_calls.h), then
/// release_bookkeeping_ns. Launches are estimated by their median (CostSamples::by_median).
std::vector<CostSamples> host_cost_kinds();

/// Appends `trial`'s samples to `kinds` (host_cost_kinds' order).
void add_trial_samples(std::vector<CostSamples>& kinds, const TrialStats& trial);

}  // namespace allocsim::hw
