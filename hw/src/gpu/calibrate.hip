// `allocsim-hw calibrate`, its device-side part: the spin rate, the callback route's wake-up and
// back-to-back cost, the synchronize wake-up, and the validation kernel's own device time (the gap
// between dependent ops, its check and fill passes), each a median over samples after a
// warm-up (host times from steady_clock, device times from timing events). Callbacks are timed
// through the backend's own CallbackRelay, the route validation's callbacks take. The host-call
// fields are left at -1 here: hw/apps/calibrate_host_calls.cpp measures them inside a running
// workload, and the command refuses a profile with any field unmeasured.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "allocsim/core/platform.h"
#include "allocsim/hw/pattern.h"
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

void set_spread(CalibrationOutput& out, const char* field, std::vector<double> samples) {
  out.spread.quantiles[platform_field_index(*find_platform_field(field))] = spread_quantiles(samples);
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
  hipStream_t s;
  ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
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
  {  // kernel-duration jitter: 200 spins of ~100 us, each over their median, scaled to the rate
    std::vector<double> t;
    for (int i = 0; i < 200; ++i) t.push_back(spin_ns(s, 200'000));
    const double mid = median(t);
    for (double& x : t) x = out.profile.spin_ns_per_cycle * x / mid;
    set_spread(out, "spin_ns_per_cycle", t);
  }
  out.extra.emplace_back("spin_1M_cycles_ns", median(per_cycle_1m) * 1e6);

  // Callbacks on an idle stream, through the relay: from the enqueue's return (when the
  // simulator's marker is ready) to the callback running on the relay's thread, which has been
  // asleep: the wake-up.
  const int back_to_back = 200;
  CallbackStamps stamps(std::size_t(n + back_to_back));
  std::vector<double> latency;
  for (int i = 0; i < n; ++i) {
    const int seen = stamps.seen.load();
    stamps.enqueue(s);
    const auto after = Clock::now();
    stamps.wait_for(seen + 1, Clock::now() + std::chrono::seconds(5));
    latency.push_back(double(stamps.stamp(seen) - after.time_since_epoch().count()));
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the relay's thread fall asleep
  }
  out.profile.callback_latency_ns = TimeNs(median(latency));
  set_spread(out, "callback_latency_ns", latency);

  // Back-to-back callbacks released together behind a spin: the spacing is the per-callback cost
  // of an awake relay (the host function and the hand-off to the next).
  {
    const int k = back_to_back;
    ALLOCSIM_HIP_CHECK(launch_spin(20'000'000, s));
    const int seen = stamps.seen.load();
    for (int i = 0; i < k; ++i) stamps.enqueue(s);
    stamps.wait_for(seen + k, Clock::now() + std::chrono::seconds(10));
    out.profile.callback_run_ns = TimeNs(double(stamps.stamp(seen + k - 1) - stamps.stamp(seen)) / (k - 1));
    std::vector<double> gaps;
    for (int i = 1; i < k; ++i) gaps.push_back(double(stamps.stamp(seen + i) - stamps.stamp(seen + i - 1)));
    set_spread(out, "callback_run_ns", gaps);
  }

  // The op kernel's own device time (validation only): the gap between dependent ops on one stream
  // (eleven empty ops against one), and its check and fill passes per MiB.
  {
    const std::uint64_t max_bytes = 64ull << 20;  // also holds the contended workload's 24 MiB
    std::uint32_t* buf = nullptr;
    unsigned long long* counters = nullptr;
    ALLOCSIM_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&buf), max_bytes));
    ALLOCSIM_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&counters), 4 * sizeof(unsigned long long)));
    ALLOCSIM_HIP_CHECK(hipMemset(buf, 0, max_bytes));
    int sms = 1;
    ALLOCSIM_HIP_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, 0));
    auto timed = [&](const OpDescriptor& a, int times) {
      std::vector<double> t;
      for (int i = 0; i < 30; ++i) {
        hipEvent_t e0, e1;
        ALLOCSIM_HIP_CHECK(hipEventCreate(&e0));
        ALLOCSIM_HIP_CHECK(hipEventCreate(&e1));
        ALLOCSIM_HIP_CHECK(hipEventRecord(e0, s));
        for (int k = 0; k < times; ++k) ALLOCSIM_HIP_CHECK(launch_op(a, s));
        ALLOCSIM_HIP_CHECK(hipEventRecord(e1, s));
        ALLOCSIM_HIP_CHECK(hipEventSynchronize(e1));
        float ms = 0;
        ALLOCSIM_HIP_CHECK(hipEventElapsedTime(&ms, e0, e1));
        t.push_back(double(ms) * 1e6);
        ALLOCSIM_HIP_CHECK(hipEventDestroy(e0));
        ALLOCSIM_HIP_CHECK(hipEventDestroy(e1));
      }
      return median(t);
    };
    OpDescriptor empty;
    empty.mismatch_counters = counters;
    empty.stale_counters = counters + 2;
    empty.max_blocks = unsigned(sms);
    const double one = timed(empty, 1), eleven = timed(empty, 11);
    out.profile.device_op_gap_ns = TimeNs(std::max(0.0, (eleven - one) / 10));
    // Per MiB over 16 MiB, the scale of the scenarios' buffers (smaller ones sit in L2 and check
    // faster, 64 MiB ones slower: this is one point of that curve).
    const std::uint64_t mib = 16;
    OpDescriptor r = empty, w = empty;
    KernelSegment seg;
    seg.base = buf;
    seg.count = (mib << 20) / 4;
    seg.alloc = 0;
    seg.version = kZeroVersion;
    r.reads[r.num_reads++] = seg;
    w.writes[w.num_writes++] = seg;
    out.profile.op_check_ns_per_mib = TimeNs(std::max(0.0, (timed(r, 1) - one) / double(mib)));
    out.profile.op_fill_ns_per_mib = TimeNs(std::max(0.0, (timed(w, 1) - one) / double(mib)));
    // The same passes while another stream runs ops (contended): a chain of compute-like ops
    // (read 4 MiB, spin 100 us, write 4 MiB) on one stream and, once it runs, three
    // autotune-like ops (read 8 MiB, spin 50 us, write 8 MiB) on another, as conv-autotune
    // overlaps them. Each op's passes come from its own phase stamps (kernels.h: the last block's
    // end of checking less the first block's start; the last block's end less the first block's
    // start of writing), per MiB. On the H200 these ran several times slower than alone
    // (results/hw/h200-pairs), which widens every race window of overlapping ops; a lone
    // spinning op on another stream slows nothing, so the workload overlaps real op chains.
    {
      hipStream_t other;
      ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&other, hipStreamNonBlocking));
      constexpr int kChain = 6, kOverlapping = 3;
      unsigned long long* stamps = nullptr;
      const std::size_t nstamps = kTimelineStampsPerOp * (kChain + kOverlapping);
      ALLOCSIM_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&stamps), nstamps * sizeof(unsigned long long)));
      auto op_over = [&](std::uint64_t read_off_mib, std::uint64_t read_mib, std::uint64_t write_off_mib,
                         std::uint64_t write_mib, double spin_ns_wanted) {
        OpDescriptor d = empty;
        KernelSegment rs = seg, ws = seg;
        rs.base = buf + (read_off_mib << 20) / 4;
        rs.count = (read_mib << 20) / 4;
        ws.base = buf + (write_off_mib << 20) / 4;
        ws.count = (write_mib << 20) / 4;
        d.reads[d.num_reads++] = rs;
        d.writes[d.num_writes++] = ws;
        d.spin_cycles = static_cast<long long>(spin_ns_wanted / out.profile.spin_ns_per_cycle);
        d.timestamps = stamps;
        return d;
      };
      std::vector<double> check_per_mib, fill_per_mib;
      for (int rep = 0; rep < 20; ++rep) {
        ALLOCSIM_HIP_CHECK(hipMemset(stamps, 0, nstamps * sizeof(unsigned long long)));
        ALLOCSIM_HIP_CHECK(hipDeviceSynchronize());
        for (int i = 0; i < kChain; ++i) {
          OpDescriptor c = op_over(0, 4, 4, 4, 100'000);
          c.op_index = unsigned(i);
          ALLOCSIM_HIP_CHECK(launch_op(c, s));
        }
        const auto started = Clock::now();  // the chain's first op is running by then
        while (ns_since(started) < 150'000) {
        }
        for (int i = 0; i < kOverlapping; ++i) {
          OpDescriptor a = op_over(16, 8, 16, 8, 50'000);
          a.op_index = unsigned(kChain + i);
          ALLOCSIM_HIP_CHECK(launch_op(a, other));
        }
        ALLOCSIM_HIP_CHECK(hipDeviceSynchronize());
        std::vector<unsigned long long> h(nstamps);
        ALLOCSIM_HIP_CHECK(hipMemcpy(h.data(), stamps, nstamps * sizeof(unsigned long long), hipMemcpyDeviceToHost));
        for (int i = kChain; i < kChain + kOverlapping; ++i) {
          const unsigned long long* t = &h[kTimelineStampsPerOp * std::size_t(i)];
          if (!t[0] || !t[1] || !t[2] || !t[3]) continue;
          check_per_mib.push_back(double(t[2] - ~t[0]) * kTimelineNsPerTick / 8.0);
          fill_per_mib.push_back(double(t[1] - ~t[3]) * kTimelineNsPerTick / 8.0);
        }
      }
      out.profile.op_check_contended_ns_per_mib = TimeNs(median(check_per_mib));
      out.profile.op_fill_contended_ns_per_mib = TimeNs(median(fill_per_mib));
      set_spread(out, "op_check_contended_ns_per_mib", check_per_mib);
      set_spread(out, "op_fill_contended_ns_per_mib", fill_per_mib);
      ALLOCSIM_HIP_CHECK(hipFree(stamps));
      ALLOCSIM_HIP_CHECK(hipStreamDestroy(other));
    }
    ALLOCSIM_HIP_CHECK(hipFree(buf));
    ALLOCSIM_HIP_CHECK(hipFree(counters));
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
  set_spread(out, "sync_wakeup_ns", wake);

  ALLOCSIM_HIP_CHECK(hipStreamDestroy(s));
  return out;
}

}  // namespace allocsim::hw
