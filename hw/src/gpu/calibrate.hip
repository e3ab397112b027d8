// `allocsim-hw calibrate`: measure the platform profile (core/platform.h) on this GPU.
// Every number is a median over `iterations` samples after a warm-up; host times come from
// steady_clock around the HIP call, device times from timing events. Every field of
// kPlatformFields must be measured: one left at its H200 default would be written to the profile
// as if this GPU had measured it. Callbacks are timed through the backend's own CallbackRelay, the
// route validation's callbacks take.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "allocsim/core/platform.h"
#include "allocsim/pool/bfc_pool.h"
#include "allocsim/pool/fake_sub_allocator.h"
#include "callback_relay.h"
#include "kernels.h"

namespace allocsim::hw {
namespace {

using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point t) {
  return double(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count());
}
double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// Host callbacks through the relay, each stamping when it ran (the relay runs one at a time, so
/// the i-th callback writes stamp i, published by `seen`).
struct CallbackStamps {
  explicit CallbackStamps(std::size_t capacity) : ns(capacity) {}
  std::vector<std::int64_t> ns;
  std::atomic<int> seen{0};
  CallbackRelay relay;  // last: destroyed (drained) first

  void enqueue(hipStream_t s) {
    if (!relay.enqueue(s, [this] {
          const int i = seen.load(std::memory_order_relaxed);
          if (std::size_t(i) < ns.size()) ns[std::size_t(i)] = Clock::now().time_since_epoch().count();
          seen.store(i + 1, std::memory_order_release);
        }))
      throw HwError("calibrate: hipStreamAddCallback failed");
  }
  std::int64_t stamp(int i) const { return ns.at(std::size_t(i)); }
  void wait_for(int count, Clock::time_point deadline) {
    while (seen.load(std::memory_order_acquire) < count)
      if (Clock::now() > deadline) throw HwError("calibrate: a host callback did not run within its deadline");
  }
};

/// Device time of a spin of `cycles`, in ns (timing events).
double spin_ns(hipStream_t s, long long cycles) {
  hipEvent_t a, b;
  ALLOCSIM_HIP_CHECK(hipEventCreate(&a));
  ALLOCSIM_HIP_CHECK(hipEventCreate(&b));
  ALLOCSIM_HIP_CHECK(hipEventRecord(a, s));
  ALLOCSIM_HIP_CHECK(launch_spin(cycles, s));
  ALLOCSIM_HIP_CHECK(hipEventRecord(b, s));
  ALLOCSIM_HIP_CHECK(hipEventSynchronize(b));
  float ms = 0;
  ALLOCSIM_HIP_CHECK(hipEventElapsedTime(&ms, a, b));
  ALLOCSIM_HIP_CHECK(hipEventDestroy(a));
  ALLOCSIM_HIP_CHECK(hipEventDestroy(b));
  return double(ms) * 1e6;
}

}  // namespace

CalibrationOutput calibrate_device(int n) {
  CalibrationOutput out;
  out.device = describe_gpu();
  for (const PlatformField& f : kPlatformFields) {  // -1: not measured yet (checked at the end)
    if (f.ns) out.profile.*f.ns = -1;
    else out.profile.*f.ratio = -1;
  }
  n = std::max(n, 10);
  hipStream_t s, s2;
  ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  // Warm-up: module load, and ~300 ms of spinning so the SM clock leaves its idle state.
  for (int i = 0; i < 10; ++i) ALLOCSIM_HIP_CHECK(launch_empty(s));
  for (int i = 0; i < 6; ++i) ALLOCSIM_HIP_CHECK(launch_spin(100'000'000, s));
  ALLOCSIM_HIP_CHECK(hipStreamSynchronize(s));

  // Spin accuracy: slope between 1 M and 4 M cycles (removes the launch/event fixed part).
  std::vector<double> slope, per_cycle_1m;
  for (int i = 0; i < 20; ++i) {
    double t1 = spin_ns(s, 1'000'000), t4 = spin_ns(s, 4'000'000);
    slope.push_back((t4 - t1) / 3e6);
    per_cycle_1m.push_back(t1 / 1e6);
  }
  out.profile.spin_ns_per_cycle = median(slope);
  out.extra.emplace_back("spin_1M_cycles_ns", median(per_cycle_1m) * 1e6);

  // Launch overhead: host time of one launch of the backend's op kernel, queue kept short.
  std::vector<double> op_launch;
  OpDescriptor empty_op;  // the backend's real op kernel with nothing to do
  for (int i = 0; i < n; ++i) {
    auto t = Clock::now();
    ALLOCSIM_HIP_CHECK(launch_op(empty_op, s));
    op_launch.push_back(ns_since(t));
    if (i % 64 == 63) ALLOCSIM_HIP_CHECK(hipStreamSynchronize(s));
  }
  ALLOCSIM_HIP_CHECK(hipStreamSynchronize(s));
  out.profile.launch_overhead_ns = TimeNs(median(op_launch));

  // Events: record, query (completed), stream wait.
  std::vector<double> rec, query, wait, create, destroy;
  hipEvent_t e;
  ALLOCSIM_HIP_CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
  for (int i = 0; i < n; ++i) {
    auto t = Clock::now();
    ALLOCSIM_HIP_CHECK(hipEventRecord(e, s));
    rec.push_back(ns_since(t));
    ALLOCSIM_HIP_CHECK(hipEventSynchronize(e));
    t = Clock::now();
    hipError_t q = hipEventQuery(e);
    query.push_back(ns_since(t));
    ALLOCSIM_HIP_CHECK(q);
    t = Clock::now();
    ALLOCSIM_HIP_CHECK(hipStreamWaitEvent(s2, e, 0));
    wait.push_back(ns_since(t));
    t = Clock::now();
    hipEvent_t tmp;
    ALLOCSIM_HIP_CHECK(hipEventCreateWithFlags(&tmp, hipEventDisableTiming));
    create.push_back(ns_since(t));
    t = Clock::now();
    ALLOCSIM_HIP_CHECK(hipEventDestroy(tmp));
    destroy.push_back(ns_since(t));
  }
  ALLOCSIM_HIP_CHECK(hipEventDestroy(e));
  ALLOCSIM_HIP_CHECK(hipStreamSynchronize(s2));
  out.profile.event_record_ns = TimeNs(median(rec));
  out.profile.event_query_ns = TimeNs(median(query));
  out.profile.stream_wait_ns = TimeNs(median(wait));
  out.profile.event_create_ns = TimeNs(median(create));
  out.profile.event_destroy_ns = TimeNs(median(destroy));

  // Callbacks on an idle stream, through the relay: the enqueue's host cost, and from the enqueue's
  // return (when the simulator's marker is ready) to the callback running on the relay's thread,
  // which has been asleep: the wake-up.
  const int back_to_back = 200;
  CallbackStamps stamps(std::size_t(n + back_to_back));
  std::vector<double> enqueue, latency;
  for (int i = 0; i < n; ++i) {
    const int seen = stamps.seen.load();
    auto t = Clock::now();
    stamps.enqueue(s);
    auto after = Clock::now();
    enqueue.push_back(double(std::chrono::duration_cast<std::chrono::nanoseconds>(after - t).count()));
    stamps.wait_for(seen + 1, Clock::now() + std::chrono::seconds(5));
    latency.push_back(double(stamps.stamp(seen) - after.time_since_epoch().count()));
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the relay's thread fall asleep
  }
  out.profile.callback_enqueue_ns = TimeNs(median(enqueue));
  out.profile.callback_latency_ns = TimeNs(median(latency));

  // Back-to-back callbacks released together behind a spin: the spacing is the per-callback cost
  // of an awake relay (the host function and the hand-off to the next).
  {
    const int k = back_to_back;
    ALLOCSIM_HIP_CHECK(launch_spin(20'000'000, s));
    const int seen = stamps.seen.load();
    for (int i = 0; i < k; ++i) stamps.enqueue(s);
    stamps.wait_for(seen + k, Clock::now() + std::chrono::seconds(10));
    out.profile.callback_run_ns = TimeNs(double(stamps.stamp(seen + k - 1) - stamps.stamp(seen)) / (k - 1));
  }

  // Blocking sync wake-up: spin of known device length, host polls the stream; extra time = wake-up.
  std::vector<double> wake;
  for (int i = 0; i < 50; ++i) {
    const long long cycles = 200'000;
    const double dev = spin_ns(s, cycles);  // also warms
    auto t = Clock::now();
    ALLOCSIM_HIP_CHECK(launch_spin(cycles, s));
    while (hipStreamQuery(s) == hipErrorNotReady) {
    }
    wake.push_back(std::max(0.0, ns_since(t) - dev));
  }
  out.profile.sync_wakeup_ns = TimeNs(median(wake));

  // Pool alloc / free on the host (the BFC model under its lock), churn of mixed sizes.
  {
    BfcOptions o;
    o.memory_limit = 1ull << 30;
    o.allow_growth = false;
    FakeSubAllocator sub(o);  // placement costs nothing next to the pool's own work
    BfcPool pool(o, sub);
    std::vector<double> a, f;
    std::vector<Addr> live;
    for (int i = 0; i < n; ++i) {
      std::uint64_t bytes = 256ull << (i % 12);
      auto t = Clock::now();
      auto addr = pool.allocate(bytes);
      a.push_back(ns_since(t));
      if (addr) live.push_back(*addr);
      if (live.size() > 32) {
        t = Clock::now();
        pool.deallocate(live[(i * 7) % live.size()]);
        f.push_back(ns_since(t));
        live.erase(live.begin() + (i * 7) % live.size());
      }
    }
    out.profile.host_alloc_ns = TimeNs(median(a));
    out.profile.host_free_ns = TimeNs(median(f));
  }
  ALLOCSIM_HIP_CHECK(hipStreamDestroy(s));
  ALLOCSIM_HIP_CHECK(hipStreamDestroy(s2));
  for (const PlatformField& f : kPlatformFields)
    if (!(platform_value(out.profile, f) >= 0))
      throw HwError(std::string("calibrate: no valid measurement of ") + f.name + " (add one to calibrate.hip)");
  return out;
}

}  // namespace allocsim::hw
