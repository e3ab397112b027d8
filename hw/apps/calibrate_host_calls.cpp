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
  std::array<CallTime, std::size_t(HostCall::kCount)> release_calls{};
  std::array<std::vector<std::uint32_t>, std::size_t(HostCall::kCount)> samples{};
  TimeNs release_ns = 0;
  std::uint64_t releases = 0;
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
        release_calls[i].calls += s.release_calls[i].calls;
        release_calls[i].ns += s.release_calls[i].ns;
      }
      release_ns += s.release_host_ns;
      releases += s.releases;
    }
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const PlatformField* f = find_platform_field(kHostCalls[i].platform_field);
    if (!f) continue;  // a wait: charged its length, no field
    std::vector<std::uint32_t>& v = samples[i];
    if (v.empty()) throw HwError(std::string("calibrate: the workload made no ") + kHostCalls[i].name + " call to measure");
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    (void)set_platform_field(profile, *f, double(v[v.size() / 2]));
    out.counts.emplace_back(f->name, double(v.size()));
  }
  // A release's own bookkeeping: its plan's host time less every call made inside it (waits too),
  // a mean over the releases (it has no single call to take a median of).
  TimeNs in_calls = 0;
  for (const CallTime& c : release_calls) in_calls += c.ns;
  if (releases == 0) throw HwError("calibrate: the workload released nothing");
  const PlatformField* book = find_platform_field("release_bookkeeping_ns");
  (void)set_platform_field(profile, *book, std::max(0.0, double(release_ns - in_calls) / double(releases)));
  out.counts.emplace_back(book->name, double(releases));
  return out;
}

}  // namespace allocsim::hw
