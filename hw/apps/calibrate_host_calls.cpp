// See calibrate_host_calls.h.
#include "calibrate_host_calls.h"

#include <algorithm>
#include <array>
#include <memory>

#include "allocsim/core/policy.h"
#include "allocsim/core/seeds.h"
#include "allocsim/hw/host_calls.h"
#include "validate_runner.h"

namespace allocsim::hw {

HostCallCalibration calibrate_host_calls(PlatformProfile& profile, const Scenario& workload, int trials) {
  std::array<std::vector<std::uint32_t>, std::size_t(HostCall::kCount)> samples{};
  std::vector<std::uint32_t> bookkeeping;
  HostCallCalibration out;
  out.workload = workload.name + ", every policy with guard none, " + std::to_string(trials) + " trials each";
  HwDeviceOptions options;
  options.platform = profile;  // its spin rate turns op durations into cycles
  options.params = workload.params;
  options.semaphore = 32;
  options.wait_timeout_ns = 5'000'000'000;
  for (const RegistryEntry& policy : list_policies()) {
    std::unique_ptr<HwDevice> device = make_hip_device(workload, options);
    for (int t = 0; t < trials; ++t) {
      const TrialStats s =
          run_trial(*device, workload, policy.name, "none", workload.params, seeds::nth(workload.seed, std::uint64_t(t)));
      for (std::size_t i = 0; i < samples.size(); ++i) {
        samples[i].insert(samples[i].end(), s.call_samples[i].begin(), s.call_samples[i].end());
      }
      bookkeeping.insert(bookkeeping.end(), s.release_bookkeeping_samples.begin(), s.release_bookkeeping_samples.end());
    }
  }
  auto median = [](std::vector<std::uint32_t>& v) {
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return double(v[v.size() / 2]);
  };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const PlatformField* f = find_platform_field(kHostCalls[i].platform_field);
    if (!f) continue;  // a wait: charged its length, no field
    if (samples[i].empty())
      throw HwError(std::string("calibrate: the workload made no ") + kHostCalls[i].name + " call to measure");
    (void)set_platform_field(profile, *f, median(samples[i]));
    out.counts.emplace_back(f->name, double(samples[i].size()));
  }
  // A release's own bookkeeping: its plan's host time less every call made inside it (waits too).
  if (bookkeeping.empty()) throw HwError("calibrate: the workload released nothing");
  const PlatformField* book = find_platform_field("release_bookkeeping_ns");
  (void)set_platform_field(profile, *book, median(bookkeeping));
  out.counts.emplace_back(book->name, double(bookkeeping.size()));
  return out;
}

}  // namespace allocsim::hw
