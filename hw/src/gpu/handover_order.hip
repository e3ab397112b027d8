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

HandoverOrderSamples time_handover_order(double spin_ns_per_cycle, int rounds, double spin_ns) {
  using Clock = CallbackRelay::Clock;
  hipStream_t idle, busy;
  ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&idle, hipStreamNonBlocking));
  ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&busy, hipStreamNonBlocking));
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
      if (!relay.enqueue(idle, callback(0))) throw HwError("calibrate: hipStreamAddCallback failed");
      const auto kernel_enqueued = Clock::now();
      ALLOCSIM_HIP_CHECK(launch_spin(cycles, busy));
      if (!relay.enqueue(busy, callback(1))) throw HwError("calibrate: hipStreamAddCallback failed");
      if (!relay.wait_idle(Clock::now() + std::chrono::seconds(5)))
        throw HwError("calibrate: a host callback did not run within its deadline");
      const auto ns = [](Clock::duration d) { return double(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()); };
      out.first_handover.push_back(ns(r.handed[0] - first_enqueued));
      out.second_handover.push_back(ns(r.handed[1] - kernel_enqueued));
      if (r.order[0] > r.order[1]) out.inverted_lag.push_back(ns(r.handed[0] - r.handed[1]));
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the relay's thread fall asleep
    }
    ALLOCSIM_HIP_CHECK(hipStreamSynchronize(busy));
  }
  ALLOCSIM_HIP_CHECK(hipStreamDestroy(idle));
  ALLOCSIM_HIP_CHECK(hipStreamDestroy(busy));
  return out;
}

}  // namespace allocsim::hw
