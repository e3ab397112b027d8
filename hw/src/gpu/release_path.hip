// The semaphore release's path, timed (release_path.h), and validate's measurement of it in its
// own process (hw_device.h's measure_process_release_path).
#include "release_path.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "allocsim/hw/hw_device.h"
#include "callback_relay.h"
#include "kernels.h"

namespace allocsim::hw {
namespace {

using Clock = std::chrono::steady_clock;

double ns_between(Clock::time_point a, Clock::time_point b) {
  return double(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

long long spin_cycles_600us(double spin_ns_per_cycle) { return static_cast<long long>(600'000 / spin_ns_per_cycle); }

/// Mapped host memory the flag kernel stores into, freed with its owner.
struct MappedFlag {
  MappedFlag() {
    ALLOCSIM_HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&host), sizeof(unsigned), hipHostMallocMapped));
    ALLOCSIM_HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void**>(&device), host, 0));
    set(0);
  }
  ~MappedFlag() { (void)hipHostFree(host); }
  MappedFlag(const MappedFlag&) = delete;
  MappedFlag& operator=(const MappedFlag&) = delete;
  unsigned get() const { return *static_cast<volatile unsigned*>(host); }
  void set(unsigned v) { *static_cast<volatile unsigned*>(host) = v; }
  unsigned* host = nullptr;
  unsigned* device = nullptr;
};

/// One round's stamps, as samples. The spans from `seen` start at the poller's stamp, and the
/// poller can be preempted past the hand-over: a negative one is 0 from the kernel's end.
void add_round(ReleasePathSamples& out, Clock::time_point seen, Clock::time_point handed, Clock::time_point body,
               Clock::time_point notified, Clock::time_point awake) {
  out.after_op.push_back(std::max(0.0, ns_between(seen, body)));
  out.behind.push_back(std::max(0.0, ns_between(seen, handed)));
  out.relay_wake.push_back(ns_between(handed, body));
  out.host_wake.push_back(ns_between(notified, awake));
  out.total.push_back(std::max(0.0, ns_between(seen, awake)));
}

}  // namespace

ReleasePathSamples time_release_path(hipStream_t s, double spin_ns_per_cycle, int rounds) {
  MappedFlag flag;
  CallbackRelay relay;
  std::mutex mu;
  std::condition_variable cv;
  ReleasePathSamples out;
  for (int i = 0; i < rounds; ++i) {
    flag.set(0);
    bool released = false;
    Clock::time_point seen{}, handed{}, body{}, notified{};
    std::atomic<bool> poll_done{false};
    std::thread poller([&] {
      const auto give_up = Clock::now() + std::chrono::seconds(5);
      while (flag.get() == 0)
        if (Clock::now() > give_up) return;
      seen = Clock::now();
      poll_done.store(true, std::memory_order_release);
    });
    ALLOCSIM_HIP_CHECK(launch_spin(spin_cycles_600us(spin_ns_per_cycle), s));
    ALLOCSIM_HIP_CHECK(launch_host_flag(flag.device, 1u, s));
    if (!relay.enqueue(s, [&] {
          body = Clock::now();
          handed = relay.handed_over();
          {
            std::lock_guard<std::mutex> lk(mu);
            released = true;
            notified = Clock::now();
          }
          cv.notify_all();
        }))
      throw HwError("release path: hipStreamAddCallback failed");
    Clock::time_point awake;
    {
      std::unique_lock<std::mutex> lk(mu);
      if (!cv.wait_until(lk, Clock::now() + std::chrono::seconds(5), [&] { return released; }))
        throw HwError("release path: a semaphore-release callback did not run within 5 s");
      awake = Clock::now();
    }
    poller.join();
    ALLOCSIM_HIP_CHECK(hipStreamSynchronize(s));
    if (!poll_done.load(std::memory_order_acquire)) throw HwError("release path: the host never saw the kernel's flag");
    add_round(out, seen, handed, body, notified, awake);
  }
  return out;
}

ReleasePathSamples time_pipelined_releases(hipStream_t s, double spin_ns_per_cycle, int depth, int rounds) {
  MappedFlag flag;
  const auto n = std::size_t(rounds);
  std::vector<Clock::time_point> seen(n), handed(n), body(n), notified(n), awake(n);
  std::mutex mu;
  std::condition_variable cv;
  int released = 0;
  std::atomic<bool> poll_gave_up{false};
  // One poller for all rounds: each new number the flag kernel stores is a round's end.
  std::thread poller([&] {
    const auto give_up = Clock::now() + std::chrono::seconds(10) + std::chrono::microseconds(600) * rounds;
    unsigned last = 0;
    while (last < unsigned(rounds)) {
      const unsigned v = flag.get();
      if (v != last) {
        const auto t = Clock::now();
        for (unsigned j = last; j < v && j < unsigned(rounds); ++j) seen[j] = t;
        last = v;
      } else if (Clock::now() > give_up) {
        poll_gave_up.store(true);
        return;
      }
    }
  });
  {
    CallbackRelay relay;  // drained (destroyed) before the poller is joined
    auto enqueue_round = [&](int i) {
      ALLOCSIM_HIP_CHECK(launch_spin(spin_cycles_600us(spin_ns_per_cycle), s));
      ALLOCSIM_HIP_CHECK(launch_host_flag(flag.device, unsigned(i + 1), s));
      if (!relay.enqueue(s, [&, i] {
            body[std::size_t(i)] = Clock::now();
            handed[std::size_t(i)] = relay.handed_over();
            {
              std::lock_guard<std::mutex> lk(mu);
              released = i + 1;
              notified[std::size_t(i)] = Clock::now();
            }
            cv.notify_all();
          }))
        throw HwError("release path: hipStreamAddCallback failed");
    };
    for (int i = 0; i < std::min(depth, rounds); ++i) enqueue_round(i);
    for (int i = 0; i < rounds; ++i) {
      {
        std::unique_lock<std::mutex> lk(mu);
        if (!cv.wait_until(lk, Clock::now() + std::chrono::seconds(5), [&] { return released > i; }))
          throw HwError("release path: a pipelined semaphore-release callback did not run within 5 s");
        awake[std::size_t(i)] = Clock::now();
      }
      if (i + depth < rounds) enqueue_round(i + depth);
    }
    ALLOCSIM_HIP_CHECK(hipStreamSynchronize(s));
  }
  poller.join();
  if (poll_gave_up.load()) throw HwError("release path: the host never saw a pipelined round's flag");
  ReleasePathSamples out;
  for (std::size_t i = 0; i < n; ++i) add_round(out, seen[i], handed[i], body[i], notified[i], awake[i]);
  return out;
}

std::vector<double> time_wake_first_launch(hipStream_t s, double spin_ns_per_cycle, int rounds) {
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  hipStream_t idle;
  ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&idle, hipStreamNonBlocking));
  OpDescriptor op;  // validation's kernel and argument block: no segments, no spin
  op.max_blocks = 1;
  std::vector<double> out;
  {
    CallbackRelay relay;  // drained (destroyed) before what its callbacks touch
    for (int i = 0; i < rounds; ++i) {
      released = false;
      ALLOCSIM_HIP_CHECK(launch_spin(spin_cycles_600us(spin_ns_per_cycle), s));
      if (!relay.enqueue(s, [&] {
            {
              std::lock_guard<std::mutex> lk(mu);
              released = true;
            }
            cv.notify_all();
          }))
        throw HwError("wake-up launch: hipStreamAddCallback failed");
      {
        std::unique_lock<std::mutex> lk(mu);
        if (!cv.wait_until(lk, Clock::now() + std::chrono::seconds(5), [&] { return released; }))
          throw HwError("wake-up launch: the releasing callback did not run within 5 s");
      }
      std::vector<double> ns(kWakeLaunches);
      for (double& x : ns) {
        const auto t = Clock::now();
        ALLOCSIM_HIP_CHECK(launch_op(op, idle));
        x = ns_between(t, Clock::now());
      }
      std::vector<double> awake(ns.begin() + kWakeLaunches / 2, ns.end());
      std::nth_element(awake.begin(), awake.begin() + awake.size() / 2, awake.end());
      out.push_back(ns[0] - awake[awake.size() / 2]);
      ALLOCSIM_HIP_CHECK(hipStreamSynchronize(idle));
    }
    ALLOCSIM_HIP_CHECK(hipStreamSynchronize(s));
  }
  ALLOCSIM_HIP_CHECK(hipStreamDestroy(idle));
  return out;
}

struct ReleasePathTimer::State {
  hipStream_t stream = nullptr;
  double spin_ns_per_cycle = 1;
};

ReleasePathTimer::ReleasePathTimer(double spin_ns_per_cycle) : state_(std::make_unique<State>()) {
  state_->spin_ns_per_cycle = spin_ns_per_cycle;
  ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&state_->stream, hipStreamNonBlocking));
}

ReleasePathTimer::~ReleasePathTimer() {
  (void)hipStreamSynchronize(state_->stream);
  (void)hipStreamDestroy(state_->stream);
}

void ReleasePathTimer::warm_clocks() {
  // ~100 ms of spinning, so the SM clock has left its idle state as in calibration.
  for (int i = 0; i < 2; ++i) ALLOCSIM_HIP_CHECK(launch_spin(100'000'000, state_->stream));
  ALLOCSIM_HIP_CHECK(hipStreamSynchronize(state_->stream));
}

std::vector<double> ReleasePathTimer::after_op(int rounds) {
  return time_release_path(state_->stream, state_->spin_ns_per_cycle, rounds).after_op;
}

std::vector<double> measure_process_release_path(double spin_ns_per_cycle, int rounds) {
  ReleasePathTimer timer(spin_ns_per_cycle);
  timer.warm_clocks();
  return timer.after_op(rounds);
}

}  // namespace allocsim::hw
