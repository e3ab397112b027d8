// See host_cost_samples.h.
#include "allocsim/hw/host_cost_samples.h"

#include "allocsim/core/platform.h"
#include "allocsim/hw/host_calls.h"

namespace allocsim::hw {
namespace {

void append(CostSamples& to, const std::vector<std::uint32_t>& ns, const std::vector<std::uint32_t>& since_sleep,
            const std::vector<std::uint32_t>& since_poll, WokeFrom from) {
  for (std::size_t i = 0; i < ns.size() && i < since_sleep.size() && i < since_poll.size(); ++i) {
    if (from == WokeFrom::Poll && since_sleep[i] < kColdHorizonNs) continue;
    to.ns.push_back(ns[i]);
    to.since_sleep.push_back(from == WokeFrom::Sleep ? since_sleep[i] : since_poll[i]);
  }
}

}  // namespace

std::vector<CostSamples> host_cost_kinds() {
  std::vector<CostSamples> kinds;
  for (std::size_t i = 0; i < kHostCalls.size(); ++i)
    if (find_platform_field(kHostCalls[i].platform_field))
      kinds.push_back(CostSamples{kHostCalls[i].platform_field, {}, {}, HostCall(i) == HostCall::Launch});
  kinds.push_back(CostSamples{"release_bookkeeping_ns", {}, {}, false});
  return kinds;
}

void add_trial_samples(std::vector<CostSamples>& kinds, const TrialStats& trial, WokeFrom from) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < kHostCalls.size(); ++i)
    if (find_platform_field(kHostCalls[i].platform_field))
      append(kinds[k++], trial.call_samples[i], trial.call_since_sleep[i], trial.call_since_poll[i], from);
  append(kinds[k], trial.release_bookkeeping_samples, trial.release_bookkeeping_since_sleep,
         trial.release_bookkeeping_since_poll, from);
}

}  // namespace allocsim::hw
