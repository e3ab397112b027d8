// Two streams' callbacks, ready one after the other: in which order the relay gets them
// (handover_order.h).
#include "handover_order.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "allocsim/hw/hw_device.h"
#include "callback_relay.h"
#include "kernels.h"

namespace allocsim::hw {

HandoverOrderSamples time_handover_order(double spin_ns_per_cycle, int rounds, bool through_callback_streams,
                                         double spin_ns) {
  using Clock = CallbackRelay::Clock;
  hipStream_t idle, busy, idle_cb, busy_cb;
  for (hipStream_t* s : {&idle, &busy, &idle_cb, &busy_cb}) ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(s, hipStreamNonBlocking));
  hipEvent_t idle_done, busy_done;
  ALLOCSIM_HIP_CHECK(hipEventCreateWithFlags(&idle_done, hipEventDisableTiming));
  ALLOCSIM_HIP_CHECK(hipEventCreateWithFlags(&busy_done, hipEventDisableTiming));
  // The stream a callback is enqueued on: its own, or a callback stream ordered after it.
  auto behind = [&](hipStream_t s, hipStream_t cb, hipEvent_t e) {
    if (!through_callback_streams) return s;
    ALLOCSIM_HIP_CHECK(hipEventRecord(e, s));
    ALLOCSIM_HIP_CHECK(hipStreamWaitEvent(cb, e, 0));
    return cb;
  };
  const long long cycles = (long long)(spin_ns / spin_ns_per_cycle);
  HandoverOrderSamples out;
  out.rounds = rounds;
  {
    // The two callbacks of the round being timed: their hand-over stamps and the order the relay ran
    // them in (its FIFO is the hand-over order).
    struct Round {
      std::atomic<int> ran{0};
      Clock::time_point handed[2];
      int order[2] = {0, 0};
    } r;
    CallbackRelay relay;
    auto callback = [&](int which) {
      return [&r, &relay, which] {
        r.handed[which] = relay.handed_over();
        r.order[which] = r.ran.fetch_add(1);
      };
    };
    for (int i = 0; i < rounds; ++i) {
      r.ran = 0;
      const auto first_enqueued = Clock::now();
      if (!relay.enqueue(behind(idle, idle_cb, idle_done), callback(0)))
        throw HwError("calibrate: hipStreamAddCallback failed");
      const auto kernel_enqueued = Clock::now();
      ALLOCSIM_HIP_CHECK(launch_spin(cycles, busy));
      if (!relay.enqueue(behind(busy, busy_cb, busy_done), callback(1)))
        throw HwError("calibrate: hipStreamAddCallback failed");
      if (!relay.wait_idle(Clock::now() + std::chrono::seconds(5)))
        throw HwError("calibrate: a host callback did not run within its deadline");
      const auto ns = [](Clock::duration d) { return double(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()); };
      out.first_handover.push_back(ns(r.handed[0] - first_enqueued));
      out.second_handover.push_back(ns(r.handed[1] - kernel_enqueued));
      if (r.order[0] > r.order[1]) out.inverted_lag.push_back(ns(r.handed[0] - r.handed[1]));
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the relay's thread fall asleep
    }
    ALLOCSIM_HIP_CHECK(hipDeviceSynchronize());
  }
  ALLOCSIM_HIP_CHECK(hipEventDestroy(idle_done));
  ALLOCSIM_HIP_CHECK(hipEventDestroy(busy_done));
  for (hipStream_t s : {idle, busy, idle_cb, busy_cb}) ALLOCSIM_HIP_CHECK(hipStreamDestroy(s));
  return out;
}

}  // namespace allocsim::hw
