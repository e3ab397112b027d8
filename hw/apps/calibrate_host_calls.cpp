// See calibrate_host_calls.h.
#include "calibrate_host_calls.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "allocsim/core/policy.h"
#include "allocsim/core/seeds.h"
#include "allocsim/hw/host_calls.h"
#include "allocsim/results/resolve.h"
#include "host_pace_processes.h"
#include "validate_runner.h"

namespace allocsim::hw {

HostCallCalibration calibrate_host_calls(PlatformProfile& profile, PlatformSpread& spread, const Scenario& workload,
                                         int trials) {
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
  // The simulator adds costs up, so a call's cost is its mean, over the calls below the 99th
  // percentile (the rest are preemptions and page faults, up to ms, that a few hundred thousand
  // calls do not average out). Launches are the exception: in the workload over a tenth of them
  // block on a full launch queue (~160 us at p90), back-pressure the model does not have, so a
  // launch costs its median. Each distribution goes to the log.
  auto estimate = [&out, &spread](std::vector<std::uint32_t>& v, const char* name, bool median) {
    std::sort(v.begin(), v.end());
    // A launch gets no spread: the upper part of its distribution is that back-pressure too.
    std::vector<double> as_double(v.begin(), v.end());
    if (!median) spread.quantiles[platform_field_index(*find_platform_field(name))] = spread_quantiles(as_double);
    auto q = [&v](double p) { return double(v[std::min(v.size() - 1, std::size_t(p * double(v.size())))]); };
    const std::size_t keep = std::max<std::size_t>(1, v.size() * 99 / 100);
    double trimmed = 0;
    for (std::size_t i = 0; i < keep; ++i) trimmed += v[i];
    trimmed /= double(keep);
    char line[256];
    std::snprintf(line, sizeof line, "%s: p10 %.0f p50 %.0f p90 %.0f p99 %.0f max %.0f, mean below p99 %.0f (%s)", name,
                  q(0.1), q(0.5), q(0.9), q(0.99), double(v.back()), trimmed, median ? "median used" : "mean used");
    out.quantiles.emplace_back(line);
    return median ? q(0.5) : trimmed;
  };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const PlatformField* f = find_platform_field(kHostCalls[i].platform_field);
    if (!f) continue;  // a wait: charged its length, no field
    if (samples[i].empty())
      throw HwError(std::string("calibrate: the workload made no ") + kHostCalls[i].name + " call to measure");
    (void)set_platform_field(profile, *f, estimate(samples[i], f->name, HostCall(i) == HostCall::Launch));
    out.counts.emplace_back(f->name, double(samples[i].size()));
  }
  // A release's own bookkeeping: its plan's host time less every call made inside it (waits too).
  if (bookkeeping.empty()) throw HwError("calibrate: the workload released nothing");
  const PlatformField* book = find_platform_field("release_bookkeeping_ns");
  (void)set_platform_field(profile, *book, estimate(bookkeeping, book->name, false));
  out.counts.emplace_back(book->name, double(bookkeeping.size()));
  return out;
}

std::string calibrate_signal_wakeup(PlatformProfile& profile, PlatformSpread& spread, int samples) {
  using Clock = std::chrono::steady_clock;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<double> wake;
  for (int i = 0; i < samples; ++i) {
    bool ready = false;
    Clock::time_point notified;
    // The notifier waits long enough for this thread to be asleep, as the host is when the callback
    // thread releases a semaphore unit a whole execution later.
    std::thread notifier([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      {
        std::lock_guard<std::mutex> lk(mu);
        ready = true;
        notified = Clock::now();
      }
      cv.notify_all();
    });
    {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return ready; });
      wake.push_back(double(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - notified).count()));
    }
    notifier.join();
  }
  std::vector<double> sorted = wake;
  std::sort(sorted.begin(), sorted.end());
  const PlatformField& f = *find_platform_field("signal_wakeup_ns");
  (void)set_platform_field(profile, f, sorted[sorted.size() / 2]);
  spread.quantiles[platform_field_index(f)] = spread_quantiles(wake);
  char line[160];
  std::snprintf(line, sizeof line, "signal_wakeup_ns over %d notifies: p10 %.0f p50 %.0f p90 %.0f p99 %.0f", samples,
                sorted[sorted.size() / 10], sorted[sorted.size() / 2], sorted[sorted.size() * 9 / 10],
                sorted[sorted.size() * 99 / 100]);
  return line;
}

std::vector<double> pace_workload_busy(const PlatformProfile& profile) {
  const Scenario workload = calibration_workload(true);
  HwDeviceOptions options;
  options.platform = profile;
  options.params = workload.params;
  options.semaphore = kPaceWorkloadSemaphore;
  options.wait_timeout_ns = 5'000'000'000;
  std::unique_ptr<HwDevice> device = make_hip_device(workload, options);
  std::vector<double> busy;
  for (int t = 0; t < kPaceWorkloadTrials; ++t) {
    const TrialStats s =
        run_trial(*device, workload, "immediate", "none", workload.params, seeds::nth(workload.seed, std::uint64_t(t)));
    if (t > 0) busy.push_back(double(s.host_busy_ns));
  }
  std::sort(busy.begin(), busy.end());
  if (busy.empty() || !(busy[busy.size() / 2] > 0)) throw HwError("calibrate: the host-pace workload took no host time");
  return busy;
}

std::string calibrate_host_pace(PlatformSpread& spread, const PlatformProfile& profile, int processes) {
  const std::vector<std::vector<double>> by_process = pace_workload_in_processes(profile, processes);
  std::vector<double> busy;
  for (const std::vector<double>& b : by_process) busy.insert(busy.end(), b.begin(), b.end());
  std::sort(busy.begin(), busy.end());
  const double median = busy[busy.size() / 2];
  spread.host_pace_reference_ns = median;
  for (double& b : busy) b /= median;
  spread.host_pace = spread_quantiles(busy);
  std::string line = "host_pace over " + std::to_string(busy.size()) + " trials of " + kCalibrationWorkload + " in " +
                     std::to_string(by_process.size()) + " processes (median " +
                     std::to_string(std::llround(median / 1000)) + " us host busy):";
  char q[32];
  for (std::size_t i = 0; i < kSpreadLevels.size(); ++i) {
    std::snprintf(q, sizeof q, " p%g %.3f", 100 * kSpreadLevels[i], spread.host_pace[i]);
    line += q;
  }
  line += "; each process's median over the pooled one:";
  for (const std::vector<double>& b : by_process) {
    std::snprintf(q, sizeof q, " %.3f", b[b.size() / 2] / median);
    line += q;
  }
  return line;
}

ProcessPace measure_process_pace(const PlatformProfile& profile, const PlatformSpread& spread) {
  const std::vector<double> busy = pace_workload_busy(profile);
  ProcessPace p;
  p.trials = int(busy.size());
  p.reference_ns = spread.host_pace_reference_ns;
  p.busy_ns = busy[busy.size() / 2];
  return p;
}

}  // namespace allocsim::hw
