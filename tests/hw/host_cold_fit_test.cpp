// hw::fit_host_cold and check_host_cold (host_cold_fit.h): the window after a wake-up inside which
// a cold run's host costs ran slower than a warm run's, and by how much; and a program's costs
// against the profile inside and past that window.
#include <catch2/catch.hpp>

#include "allocsim/hw/host_cold_fit.h"

using namespace allocsim;
using namespace allocsim::hw;

namespace {

/// `n` samples of `ns` each, begun `since` after a wake-up.
void add(CostSamples& k, int n, std::uint32_t ns, std::uint32_t since) {
  for (int i = 0; i < n; ++i) {
    k.ns.push_back(ns);
    k.since_sleep.push_back(since);
  }
}

/// A launch (by its median) and an event record, warm: 5000 and 500 ns, never after a sleep.
std::vector<CostSamples> warm_run() {
  CostSamples launch{"launch_overhead_ns", {}, {}, true}, record{"event_record_ns", {}, {}, false};
  add(launch, 500, 5'000, kNeverSlept);
  add(record, 500, 500, kNeverSlept);
  return {launch, record};
}

}  // namespace

TEST_CASE("host cold fit: calls twice as slow for 40 us after a wake-up", "[hw]") {
  std::vector<CostSamples> cold = warm_run();
  for (CostSamples& k : cold) {
    const std::uint32_t warm_ns = k.ns.front();
    k.ns.clear(), k.since_sleep.clear();
    for (std::uint32_t since : {1'000u, 15'000u, 30'000u}) add(k, 50, 2 * warm_ns, since);
    for (std::uint32_t since : {50'000u, 100'000u, 200'000u, 400'000u, 600'000u}) add(k, 50, warm_ns, since);
  }
  const HostColdFit fit = fit_host_cold(warm_run(), cold);
  CHECK(fit.window_ns == 40'000);
  CHECK(fit.factor == Approx(2.0));
  CHECK(fit.cold_samples == 300);
  REQUIRE(fit.lines.size() == 7);
  CHECK(fit.lines[0] == "0-10 us after a wake-up: 100 samples, median 2.00 x warm (inside the window)");
  CHECK(fit.lines[2] == "20-40 us after a wake-up: 100 samples, median 2.00 x warm (inside the window)");
  CHECK(fit.lines[3] == "40-80 us after a wake-up: 100 samples, median 1.00 x warm");
  // What the profile then charges: the calls past the window; the check finds them as charged.
  CHECK(samples_after(cold[0], fit.window_ns).size() == 250);
  CHECK(samples_after(cold[0], fit.window_ns, true).size() == 150);
  PlatformProfile p;
  p.launch_overhead_ns = 5'000;
  p.event_record_ns = 500;
  p.host_cold_window_ns = fit.window_ns;
  const HostColdCheck check = check_host_cold(cold, p);
  CHECK(check.inside_ratio == Approx(2.0));
  CHECK(check.outside_ratio == Approx(1.0));
  CHECK(check.inside_samples == 300);
  CHECK(check.outside_samples == 500);
}

TEST_CASE("host cold fit: no slowdown, or too few samples to show one, leaves the host as it is", "[hw]") {
  std::vector<CostSamples> cold = warm_run();
  for (CostSamples& k : cold) k.ns.clear(), k.since_sleep.clear();
  SECTION("as fast after a wake-up") {
    add(cold[0], 100, 5'000, 5'000);
    add(cold[1], 100, 500, 5'000);
  }
  SECTION("slower, but only 10 samples in the first bin") {
    add(cold[0], 10, 50'000, 5'000);
    add(cold[0], 100, 5'000, 30'000);
  }
  const HostColdFit fit = fit_host_cold(warm_run(), cold);
  CHECK(fit.window_ns == 0);
  CHECK(fit.factor == 1);
  CHECK(fit.lines[0].find("(inside the window)") == std::string::npos);
}

TEST_CASE("host cold fit: slower by the median but not by the charged mean is no slowdown", "[hw]") {
  // Warm: 600 calls of 1 us and 400 of 100 us: median 1 us, mean below p99 about 40 us.
  std::vector<CostSamples> warm{CostSamples{"host_alloc_ns", {}, {}, false}};
  add(warm[0], 600, 1'000, kNeverSlept);
  add(warm[0], 400, 100'000, kNeverSlept);
  // Cold: every call 2 us, twice the warm median, a twentieth of what the profile would charge.
  std::vector<CostSamples> cold{CostSamples{"host_alloc_ns", {}, {}, false}};
  add(cold[0], 100, 2'000, 5'000);
  const HostColdFit fit = fit_host_cold(warm, cold);
  CHECK(fit.lines[0] == "0-10 us after a wake-up: 100 samples, median 2.00 x warm (inside the window)");
  CHECK(fit.window_ns == 0);
  CHECK(fit.factor == 1);
}

TEST_CASE("cost estimate: a launch's median, another call's mean below its 99th percentile", "[hw]") {
  std::vector<std::uint32_t> v(99, 100);
  v.push_back(1'000'000);  // a preemption
  std::vector<std::uint32_t> w = v;
  CHECK(cost_estimate(v, true) == 100);
  CHECK(cost_estimate(w, false) == Approx(100));
  std::vector<std::uint32_t> none;
  CHECK(cost_estimate(none, false) == 0);
}
