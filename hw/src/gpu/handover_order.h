// The order in which HIP's callback thread hands callbacks of two streams to the relay
// (callback_relay.h), timed as seed-repro at semaphore 1 meets it: a callback enqueued on an idle
// stream (ready at once, the autotuner's deferred free), then a short kernel and a callback behind
// it on another stream (ready when the kernel ends, the semaphore release). The simulator hands
// them over in the order they are ready; validate --callback-log saw the H200 hand the first over
// after the second in some trials (results/hw/h200-peak-cause-2). HIP-only header.
#pragma once
#include <hip/hip_runtime.h>

#include <vector>

namespace allocsim::hw {

struct HandoverOrderSamples {
  int rounds = 0;
  // The idle stream's callback, enqueued first, handed over after the other (that round's lag:
  // its hand-over less the other's, ns), one entry per such round.
  std::vector<double> inverted_lag;
  std::vector<double> first_handover;   // per round: the idle stream's callback, enqueue to hand-over
  std::vector<double> second_handover;  // per round: the other's, its kernel's enqueue to hand-over
};

/// `rounds` rounds on two fresh streams, each with the relay's thread asleep before it; the
/// kernel spins ~`spin_ns` (40 us: seed-repro's check kernel and the launches before it).
/// `through_callback_streams`: each callback goes as the backends' then_execute_callback sends a
/// policy's (core/backend.h): an event recorded on its stream, a callback stream of its own waiting
/// on it, the callback there.
HandoverOrderSamples time_handover_order(double spin_ns_per_cycle, int rounds, bool through_callback_streams,
                                         double spin_ns = 40'000);

}  // namespace allocsim::hw
