// `allocsim-hw calibrate`, its device-side part: the spin rate, the callback route's wake-up and
// back-to-back cost, the synchronize wake-up, and the validation kernel's own device time (the gap
// between dependent ops, its check and fill passes), each a median over samples after a
// warm-up (host times from steady_clock, device times from timing events or, for the passes, the
// op kernel's own phase stamps). Callbacks are timed
// through the backend's own CallbackRelay, the route validation's callbacks take. The host-call
// fields are left at -1 here: hw/apps/calibrate_host_calls.cpp measures them inside a running
// workload, and the command refuses a profile with any field unmeasured.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "allocsim/core/platform.h"
#include "allocsim/hw/pattern.h"
#include "callback_relay.h"
#include "handover_order.h"
#include "kernels.h"
#include "release_path.h"

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

/// Whether the op kernel counted any foreign or stale word into `counters` (the first four).
bool counters_nonzero(const unsigned long long* counters) {
  unsigned long long h[4] = {};
  ALLOCSIM_HIP_CHECK(hipMemcpy(h, counters, sizeof h, hipMemcpyDeviceToHost));
  return h[0] || h[1] || h[2] || h[3];
}

// The callback thread's costs keep their tail above p99 too (platform_spread.h's kTailLevels).
void set_spread(CalibrationOutput& out, const char* field, std::vector<double> samples) {
  const PlatformField& f = *find_platform_field(field);
  out.spread.quantiles[platform_field_index(f)] = spread_quantiles(samples);
  if (f.payer == CostPayer::callback_thread) out.spread.tails[platform_field_index(f)] = spread_tail(samples);
}

/// Extras PREFIX<stage>_p{10,50,90,99}_ns: quantiles of each stage of the release path.
void add_release_stages(CalibrationOutput& out, const std::string& prefix, const ReleasePathSamples& r) {
  for (const auto& [stage, samples] :
       {std::pair<const char*, const std::vector<double>*>{"kernel_end_to_handover", &r.behind},
        {"handover_to_relay", &r.relay_wake},
        {"notify_to_host_awake", &r.host_wake},
        {"kernel_end_to_host_awake", &r.total}}) {
    std::vector<double> v = *samples;
    std::sort(v.begin(), v.end());
    for (int q : {10, 50, 90, 99})
      out.extra.emplace_back(prefix + stage + "_p" + std::to_string(q) + "_ns",
                             v[std::min(v.size() - 1, v.size() * std::size_t(q) / 100)]);
  }
}

}  // namespace

CalibrationOutput calibrate_device(int n, int tail_rounds) {
  CalibrationOutput out;
  out.device = describe_gpu();
  for (const PlatformField& f : kPlatformFields) {  // -1: not measured yet (checked at the end)
    if (f.ns) out.profile.*f.ns = -1;
    else out.profile.*f.ratio = -1;
  }
  n = std::max(n, 10);
  tail_rounds = std::max(tail_rounds, 1000);
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
  // asleep: the wake-up. `tail_rounds` samples (20,000 by default, ~5 s), as for
  // callback_after_op_ns below: the tail above p99.9 is drawn (platform_spread.h), and a stall
  // rarer than one in a few thousand wake-ups held the hardware's highest peaks
  // (results/hw/h200-peak-cause-32), where the largest of 2,000 ranged from 0.45 to 2.9 ms over
  // four H200 hosts (results/hw/h200-lock*, h200-callbacks-3, -4).
  const int wakeups = tail_rounds;
  const int back_to_back = 200;
  CallbackStamps stamps(std::size_t(wakeups + back_to_back));
  std::vector<double> latency;
  for (int i = 0; i < wakeups; ++i) {
    const int seen = stamps.seen.load();
    stamps.enqueue(s);
    const auto after = Clock::now();
    stamps.wait_for(seen + 1, Clock::now() + std::chrono::seconds(5));
    latency.push_back(double(stamps.stamp(seen) - after.time_since_epoch().count()));
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the relay's thread fall asleep
  }
  // A host preempted inside the enqueue sees its callback run before the call returns: a negative
  // sample (one of 10,000 on results/hw/h200-relay's host), which is 0 from the marker's readiness.
  int ran_before_return = 0;
  for (double& l : latency)
    if (l < 0) l = 0, ++ran_before_return;
  out.extra.emplace_back("callback_latency_ran_before_enqueue_returned", double(ran_before_return));
  out.profile.callback_latency_ns = TimeNs(median(latency));
  set_spread(out, "callback_latency_ns", latency);

  // Diagnostic (extras only): two streams' callbacks, the idle one's enqueued first and ready at
  // once, the other's ready behind a 40 us kernel: how often, and how late, the relay got the first
  // after the second (handover_order.h; results/hw/h200-peak-cause-2 saw it in validation).
  // Twice: each callback straight on its stream, then through a callback stream of its own as a
  // policy's free goes (handover_order_via_callback_streams_*).
  for (const bool via : {false, true}) {
    const HandoverOrderSamples h = time_handover_order(out.profile.spin_ns_per_cycle, 5 * n, via);
    const std::string p = via ? "handover_order_via_callback_streams_" : "handover_order_";
    out.extra.emplace_back(p + "rounds", double(h.rounds));
    out.extra.emplace_back(p + "inverted", double(h.inverted_lag.size()));
    if (!h.inverted_lag.empty()) {
      std::vector<double> lag = h.inverted_lag;
      std::sort(lag.begin(), lag.end());
      out.extra.emplace_back(p + "inverted_lag_p50_ns", lag[lag.size() / 2]);
      out.extra.emplace_back(p + "inverted_lag_max_ns", lag.back());
    }
    for (const auto& [name, samples] : {std::pair{"first", &h.first_handover}, std::pair{"second", &h.second_handover}}) {
      std::vector<double> v = *samples;
      std::sort(v.begin(), v.end());
      for (int q : {50, 99})
        out.extra.emplace_back(p + name + "_p" + std::to_string(q) + "_ns",
                               v[std::min(v.size() - 1, v.size() * std::size_t(q) / 100)]);
      out.extra.emplace_back(p + name + "_max_ns", v.back());
    }
  }

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

  // A callback reached behind a kernel, as every semaphore release and deferred free is
  // (release_path.h): from the kernel's end to the callback's body is callback_after_op_ns, on
  // the H200 about twice callback_latency_ns, which times a callback on an idle stream from its
  // enqueue (results/hw/h200-chain); from the kernel's end to HIP's hand-over is
  // callback_handover_ns. The stages are extras too: the kernel's end to HIP's hand-over, the
  // hand-over to the relay's body, and the body's notify to the host awake.
  {
    ReleasePathSamples r = time_release_path(s, out.profile.spin_ns_per_cycle, tail_rounds);
    out.profile.callback_after_op_ns = TimeNs(median(r.after_op));
    set_spread(out, "callback_after_op_ns", r.after_op);
    // Its first part, up to HIP's hand-over to the relay, holds the marker's stream and slot.
    out.profile.callback_handover_ns = TimeNs(median(r.behind));
    set_spread(out, "callback_handover_ns", r.behind);
    add_release_stages(out, "semaphore_release_", r);
  }
  // The host's first launch after that wake-up, beyond the same launch once awake: on the H200 the
  // launch gap holding it is ~10 us longer than without the wait (results/hw/post-wake). A round
  // whose first launch was the faster one counts 0, as the simulator charges no negative cost.
  {
    std::vector<double> extra = time_wake_first_launch(s, out.profile.spin_ns_per_cycle, 300);
    std::vector<double> raw = extra;
    std::sort(raw.begin(), raw.end());
    for (int q : {10, 50, 90})
      out.extra.emplace_back("wake_first_launch_raw_p" + std::to_string(q) + "_ns", raw[raw.size() * std::size_t(q) / 100]);
    for (double& x : extra) x = std::max(0.0, x);
    out.profile.wake_first_launch_ns = TimeNs(median(extra));
    set_spread(out, "wake_first_launch_ns", extra);
  }
  // Diagnostic: the same with 1, 2 and 8 rounds in flight, as a program under those semaphores
  // keeps them (results/hw/h200-release: the depth does not change it).
  for (int depth : {1, 2, 8})
    add_release_stages(out, "semaphore_pipeline_depth" + std::to_string(depth) + "_",
                       time_pipelined_releases(s, out.profile.spin_ns_per_cycle, depth, 300));

  // Diagnostic (extras only): host time of callback enqueues and launches while the stream ahead
  // of them is blocked, as a host that runs ahead of the GPU sees it, against the same calls with
  // nothing pending. Median of the first and of the last 64 of `k` calls, in four patterns:
  // callbacks only, launches only, a launch then a callback (the deferred-callback policy's), and
  // that again while a third stream's callbacks run every ~40 us, each making two HIP calls as the
  // backend's callbacks do (a host running ahead while the GPU releases its earlier frees); and
  // the deferred-callback policy's whole sequence per free as the HIP backend makes it (a launch,
  // then an event created, recorded on the stream, waited on by a second stream that carries the
  // callback, and destroyed), first behind the blocked stream, then with 20 us spins instead of
  // empty launches so the callbacks, each making two HIP calls, run while the host enqueues.
  {
    const int k = 512;
    hipStream_t other;
    ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&other, hipStreamNonBlocking));
    auto ends = [&](const char* name, const std::vector<double>& t) {
      const std::vector<double> first(t.begin(), t.begin() + 64), last(t.end() - 64, t.end());
      out.extra.emplace_back(std::string("pending_") + name + "_first64_ns", median(first));
      out.extra.emplace_back(std::string("pending_") + name + "_last64_ns", median(last));
    };
    hipStream_t busy, callback_stream;
    ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&busy, hipStreamNonBlocking));
    ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&callback_stream, hipStreamNonBlocking));
    const long long spin_20us = static_cast<long long>(20'000 / out.profile.spin_ns_per_cycle);
    // Patterns 6 and 7: 6 and 4 again with the validation's op kernel (its ~700-byte argument
    // block, no segments, no spin) instead of the empty kernel: whether a launch blocks once the
    // blocked stream's queue holds that many arguments (the largest call and its index).
    OpDescriptor op_args;
    op_args.max_blocks = 1;
    for (int pattern = 0; pattern < 8; ++pattern) {
      const bool op_kernel = pattern >= 6;
      const bool deferred_sequence = pattern == 4 || pattern == 5 || pattern == 7, running = pattern == 5;
      CallbackStamps pending(std::size_t(2 * k));
      std::vector<double> enqueue_ns, launch_ns, other_launch_ns, event_ns;
      if (!running) ALLOCSIM_HIP_CHECK(launch_spin(80'000'000, s));  // ~40 ms: longer than the k calls below
      if (pattern == 3)
        for (int i = 0; i < k; ++i) {  // ~20 ms of 40 us spins, a callback after each
          ALLOCSIM_HIP_CHECK(launch_spin(80'000, busy));
          if (!pending.relay.enqueue(busy, [busy] {
                (void)hipStreamQuery(busy);
                (void)hipStreamQuery(busy);
              }))
            throw HwError("calibrate: hipStreamAddCallback failed");
        }
      for (int i = 0; i < k; ++i) {
        if (pattern != 0) {
          const auto t = Clock::now();
          ALLOCSIM_HIP_CHECK(op_kernel ? launch_op(op_args, s) : running ? launch_spin(spin_20us, s) : launch_empty(s));
          launch_ns.push_back(ns_since(t));
        }
        if (deferred_sequence) {
          auto t = Clock::now();
          hipEvent_t e;
          ALLOCSIM_HIP_CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
          ALLOCSIM_HIP_CHECK(hipEventRecord(e, s));
          ALLOCSIM_HIP_CHECK(hipStreamWaitEvent(callback_stream, e, 0));
          event_ns.push_back(ns_since(t));
          t = Clock::now();
          if (!pending.relay.enqueue(callback_stream, [s] {
                (void)hipStreamQuery(s);
                (void)hipStreamQuery(s);
              }))
            throw HwError("calibrate: hipStreamAddCallback failed");
          enqueue_ns.push_back(ns_since(t));
          ALLOCSIM_HIP_CHECK(hipEventDestroy(e));
        } else if (pattern != 1 && pattern != 6) {
          const auto t = Clock::now();
          pending.enqueue(s);
          enqueue_ns.push_back(ns_since(t));
        }
        const auto t = Clock::now();
        ALLOCSIM_HIP_CHECK(launch_empty(other));
        other_launch_ns.push_back(ns_since(t));
      }
      const char* names[] = {"callbacks",          "launches",      "launch_then_callback", "beside_running_callbacks",
                             "deferred_sequence", "deferred_running", "op_launches",  "op_deferred_sequence"};
      const std::string p = names[pattern];
      auto largest = [&](const char* what, const std::vector<double>& t) {
        const auto it = std::max_element(t.begin(), t.end());
        out.extra.emplace_back("pending_" + p + "_" + what + "_max_ns", *it);
        out.extra.emplace_back("pending_" + p + "_" + what + "_max_index", double(it - t.begin()));
      };
      if (op_kernel) {
        largest("launch", launch_ns);
        if (!enqueue_ns.empty()) largest("enqueue", enqueue_ns);
      }
      if (!enqueue_ns.empty()) ends((p + "_enqueue").c_str(), enqueue_ns);
      if (!launch_ns.empty()) ends((p + "_launch").c_str(), launch_ns);
      if (!event_ns.empty()) ends((p + "_event_record_wait").c_str(), event_ns);
      ends((p + "_other_stream_launch").c_str(), other_launch_ns);
      if (pattern != 1 && pattern != 6 && !deferred_sequence) pending.wait_for(k, Clock::now() + std::chrono::seconds(10));
      ALLOCSIM_HIP_CHECK(hipDeviceSynchronize());
      if (!pending.relay.wait_idle(Clock::now() + std::chrono::seconds(10)))
        throw HwError("calibrate: host callbacks did not drain within 10 s");
    }
    ALLOCSIM_HIP_CHECK(hipStreamDestroy(busy));
    ALLOCSIM_HIP_CHECK(hipStreamDestroy(callback_stream));
    ALLOCSIM_HIP_CHECK(hipStreamDestroy(other));
  }

  // The host's queue capacity behind a blocked stream: the profile's pending_callback_limit (from
  // the policy's own sequence, op_record_wait_callback), the rest extras. 512 rounds of a
  // launch followed by parts of the deferred-callback policy's per-free sequence, behind a ~40 ms
  // spin; the first call that blocks (over 1 ms: it waits for the spin) and the round it blocks in
  // (-1: none did), for each combination of parts. The op kernel (its ~700-byte argument block) and
  // the empty kernel, an event record on the launch's stream, a second stream's wait on it, and a
  // callback on that second stream or on the launch's own stream.
  {
    struct Parts {
      const char* name;
      bool op_kernel, record, wait, callback, callback_on_launch_stream;
    };
    const Parts parts[] = {
        {"op", true, false, false, false, false},
        {"op_record", true, true, false, false, false},
        {"op_record_wait", true, true, true, false, false},
        {"op_record_wait_callback", true, true, true, true, false},
        {"op_callback_same_stream", true, false, false, true, true},
        {"empty_record_wait_callback", false, true, true, true, false},
        {"empty_record", false, true, false, false, false},
    };
    OpDescriptor op_args;
    op_args.max_blocks = 1;
    hipStream_t second;
    ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&second, hipStreamNonBlocking));
    for (const Parts& p : parts) {
      CallbackRelay relay;
      ALLOCSIM_HIP_CHECK(launch_spin(80'000'000, s));
      int blocked_round = -1, blocked_call = -1;
      double blocked_ns = 0;
      auto timed = [&](int round, int call, auto&& f) {
        const auto t = Clock::now();
        f();
        const double ns = ns_since(t);
        if (blocked_round < 0 && ns > 1e6) {
          blocked_round = round;
          blocked_call = call;
          blocked_ns = ns;
        }
      };
      for (int i = 0; i < 512; ++i) {
        timed(i, 0, [&] { ALLOCSIM_HIP_CHECK(p.op_kernel ? launch_op(op_args, s) : launch_empty(s)); });
        hipEvent_t e = nullptr;
        if (p.record)
          timed(i, 1, [&] {
            ALLOCSIM_HIP_CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
            ALLOCSIM_HIP_CHECK(hipEventRecord(e, s));
            if (p.wait) ALLOCSIM_HIP_CHECK(hipStreamWaitEvent(second, e, 0));
          });
        if (p.callback)
          timed(i, 2, [&] {
            if (!relay.enqueue(p.callback_on_launch_stream ? s : second, [] {}))
              throw HwError("calibrate: hipStreamAddCallback failed");
          });
        if (e) ALLOCSIM_HIP_CHECK(hipEventDestroy(e));
      }
      const std::string n = std::string("queue_") + p.name;
      out.extra.emplace_back(n + "_blocked_round", double(blocked_round));
      out.extra.emplace_back(n + "_blocked_call", double(blocked_call));  // 0 launch, 1 event, 2 callback
      out.extra.emplace_back(n + "_blocked_ns", blocked_ns);
      if (std::string_view(p.name) == "op_record_wait_callback")  // 0: no limit within 512
        out.profile.pending_callback_limit = std::max(blocked_round, 0);
      ALLOCSIM_HIP_CHECK(hipDeviceSynchronize());
      if (!relay.wait_idle(Clock::now() + std::chrono::seconds(10)))
        throw HwError("calibrate: host callbacks did not drain within 10 s");
    }
    ALLOCSIM_HIP_CHECK(hipStreamDestroy(second));
  }

  // When a pending callback's slot frees: 512 rounds of an empty launch and a callback on an idle
  // stream, whose bodies the relay thread cannot run (the first holds it for up to 5 s). The GPU
  // reaches each callback at once and HIP hands it over; were a slot held until the body returns,
  // the launch after the limit would wait for the held body, seconds. None blocking (-1) means a
  // slot frees at the hand-over: the profile's callback_relay is 1, and 0 otherwise. A launch
  // counts as blocked past 100 ms only: one that waited a millisecond or two while HIP's own
  // callback thread was slow to hand the pending ones over made h200-warmup-2's calibration say 0
  // (round 57, the first past the limit of 56), and its prediction of the callback policies' peaks
  // model CUDA's own callback instead of the relay (results/hw/h200-warmup-2/README.md).
  {
    CallbackRelay relay;
    std::atomic<bool> release{false};
    const auto held_until = Clock::now() + std::chrono::seconds(5);
    int blocked_round = -1;
    double longest_launch_ns = 0;
    for (int i = 0; i < 512; ++i) {
      const auto t = Clock::now();
      ALLOCSIM_HIP_CHECK(launch_empty(s));
      if (!relay.enqueue(s, [&release, held_until] {
            while (!release.load() && Clock::now() < held_until) std::this_thread::sleep_for(std::chrono::microseconds(50));
          }))
        throw HwError("calibrate: hipStreamAddCallback failed");
      const double took = ns_since(t);
      longest_launch_ns = std::max(longest_launch_ns, took);
      if (blocked_round < 0 && took > 100e6) blocked_round = i;
    }
    out.extra.emplace_back("relay_held_bodies_longest_launch_ns", longest_launch_ns);
    release = true;
    ALLOCSIM_HIP_CHECK(hipDeviceSynchronize());
    if (!relay.wait_idle(Clock::now() + std::chrono::seconds(10)))
      throw HwError("calibrate: host callbacks did not drain within 10 s");
    out.extra.emplace_back("relay_held_bodies_blocked_round", double(blocked_round));
    out.profile.callback_relay = blocked_round < 0 ? 1 : 0;
  }

  // The op kernel's own device time (validation only): the gap between dependent ops on one stream
  // and its check and fill passes per MiB, all from its phase stamps (kernels.h).
  {
    const std::uint64_t max_bytes = 64ull << 20;
    std::uint32_t* buf = nullptr;
    unsigned long long* counters = nullptr;
    ALLOCSIM_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&buf), max_bytes));
    ALLOCSIM_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&counters), 4 * sizeof(unsigned long long)));
    ALLOCSIM_HIP_CHECK(hipMemset(buf, 0, max_bytes));
    ALLOCSIM_HIP_CHECK(hipMemset(counters, 0, 4 * sizeof(unsigned long long)));
    int sms = 1;
    ALLOCSIM_HIP_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, 0));
    OpDescriptor empty;
    empty.mismatch_counters = counters;
    empty.stale_counters = counters + 2;
    empty.max_blocks = unsigned(sms);
    unsigned long long* stamps = nullptr;
    constexpr int kChain = 11;
    ALLOCSIM_HIP_CHECK(
        hipMalloc(reinterpret_cast<void**>(&stamps), kChain * kTimelineStampsPerOp * sizeof(unsigned long long)));
    // The gap between dependent ops on one stream, from the op kernel's own stamps: a chain of
    // eleven ops (1 MiB read, 20 us spin, 1 MiB written: a block on every multiprocessor, as a
    // program's ops have), each next op's first block start less the previous op's last block
    // end. Timing events around empty one-block kernels (the earlier method) gave twice the
    // gaps the validation workload's own timelines show (results/hw/h200-passes).
    {
      std::vector<double> gaps;
      for (int rep = 0; rep < 20; ++rep) {
        ALLOCSIM_HIP_CHECK(hipMemset(stamps, 0, kChain * kTimelineStampsPerOp * sizeof(unsigned long long)));
        for (int i = 0; i < kChain; ++i) {
          OpDescriptor d = empty;
          KernelSegment in, out_seg;
          in.base = buf;
          in.count = (1u << 20) / 4;
          in.version = kZeroVersion;
          out_seg = in;
          out_seg.base = buf + (1u << 20) / 4 * (1 + i % 2);
          d.reads[d.num_reads++] = in;
          d.writes[d.num_writes++] = out_seg;  // zeros: reads of `in` stay as expected
          d.spin_cycles = static_cast<long long>(20'000 / out.profile.spin_ns_per_cycle);
          d.timestamps = stamps;
          d.op_index = unsigned(i);
          ALLOCSIM_HIP_CHECK(launch_op(d, s));
        }
        ALLOCSIM_HIP_CHECK(hipStreamSynchronize(s));
        std::vector<unsigned long long> t(kChain * kTimelineStampsPerOp);
        ALLOCSIM_HIP_CHECK(hipMemcpy(t.data(), stamps, t.size() * sizeof(unsigned long long), hipMemcpyDeviceToHost));
        for (int i = 1; i < kChain; ++i)
          gaps.push_back(double(~t[kTimelineStampsPerOp * i] - t[kTimelineStampsPerOp * (i - 1) + 1]) *
                         kTimelineNsPerTick);
      }
      out.profile.device_op_gap_ns = TimeNs(std::max(0.0, median(gaps)));
    }
    // The check and fill passes per MiB, over 16 MiB (the scale of the scenarios' buffers; smaller
    // ones sit in L2 and check faster). Taken from the op kernel's own phase stamps (kernels.h), as
    // the simulator places reads and writes by them: the check pass is the last block's end of
    // checking less the first block's start, the fill pass the last block's end less the first
    // block's start of writing. The data carries a pattern (version 1), as a program's does.
    const std::uint64_t mib = 16;
    KernelSegment seg;
    seg.base = buf;
    seg.count = (mib << 20) / 4;
    seg.alloc = 0;
    seg.tag = allocation_tag(0);
    seg.version = 1;
    OpDescriptor r = empty, w = empty;
    r.reads[r.num_reads++] = seg;
    w.writes[w.num_writes++] = seg;
    r.timestamps = w.timestamps = stamps;
    auto passes = [&](const OpDescriptor& a) {
      std::vector<double> check, fill;
      for (int i = 0; i < 30; ++i) {
        ALLOCSIM_HIP_CHECK(hipMemset(stamps, 0, kTimelineStampsPerOp * sizeof(unsigned long long)));
        ALLOCSIM_HIP_CHECK(launch_op(a, s));
        ALLOCSIM_HIP_CHECK(hipStreamSynchronize(s));
        unsigned long long t[kTimelineStampsPerOp];
        ALLOCSIM_HIP_CHECK(hipMemcpy(t, stamps, sizeof t, hipMemcpyDeviceToHost));
        check.push_back(double(t[2] - ~t[0]) * kTimelineNsPerTick / double(mib));
        fill.push_back(double(t[1] - ~t[3]) * kTimelineNsPerTick / double(mib));
      }
      return std::pair{check, fill};
    };
    (void)passes(w);  // the pattern r expects, and a warm-up
    std::vector<double> check = passes(r).first, fill = passes(w).second;
    out.profile.op_check_ns_per_mib = TimeNs(median(check));
    // Not measured: how op_kernel (kernels.hip) checks, a grid-stride loop over each access in turn.
    out.profile.op_check_sweep = 1;
    out.profile.op_fill_ns_per_mib = TimeNs(median(fill));
    ALLOCSIM_HIP_CHECK(hipFree(stamps));
    if (counters_nonzero(counters)) throw HwError("calibrate: the check pass read words it did not expect");
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
