// hw::fit_host_cold (host_cold_fit.h): the window after a wake-up inside which host calls ran
// slower, and by how much, from samples stamped with their time since the host's last sleep.
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

}  // namespace

TEST_CASE("host cold fit: calls twice as slow for 40 us after a wake-up", "[hw]") {
  CostSamples launch{"launch_overhead_ns", {}, {}, true}, record{"event_record_ns", {}, {}, false};
  for (std::uint32_t since : {1'000u, 15'000u, 30'000u}) {
    add(launch, 50, 10'000, since);
    add(record, 50, 1'000, since);
  }
  for (std::uint32_t since : {50'000u, 100'000u, 200'000u, 400'000u, 600'000u}) {
    add(launch, 50, 5'000, since);
    add(record, 50, 500, since);
  }
  add(launch, 500, 5'000, kNeverSlept);
  add(record, 500, 500, kColdHorizonNs);
  const HostColdFit fit = fit_host_cold({launch, record});
  CHECK(fit.window_ns == 40'000);
  CHECK(fit.factor == Approx(2.0));
  CHECK(fit.cold_samples == 300);
  CHECK(fit.warm_samples == 1500);
  REQUIRE(fit.lines.size() == 7);
  CHECK(fit.lines[0] == "0-10 us after a wake-up: 100 samples, median 2.00 x warm (inside the window)");
  CHECK(fit.lines[3] == "40-80 us after a wake-up: 100 samples, median 1.00 x warm");
  // What the profile then charges: the calls outside the window.
  CHECK(warm_part(launch, fit.window_ns).size() == 750);
}

TEST_CASE("host cold fit: no slowdown, or too few samples to show one, leaves the host as it is", "[hw]") {
  CostSamples k{"host_alloc_ns", {}, {}, false};
  SECTION("as fast after a wake-up") {
    add(k, 100, 400, 5'000);
    add(k, 100, 400, kNeverSlept);
  }
  SECTION("slower, but only 10 samples in the first bin") {
    add(k, 10, 4'000, 5'000);
    add(k, 100, 400, kNeverSlept);
  }
  const HostColdFit fit = fit_host_cold({k});
  CHECK(fit.window_ns == 0);
  CHECK(fit.factor == 1);
}

TEST_CASE("host cold fit: a kind with no warm reference is left out", "[hw]") {
  CostSamples only_cold{"stream_wait_ns", {}, {}, false};
  add(only_cold, 100, 9'000, 5'000);
  const HostColdFit fit = fit_host_cold({only_cold});
  CHECK(fit.window_ns == 0);
  CHECK(fit.lines[0] == "0-10 us after a wake-up: 0 samples, median 0.00 x warm");
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
