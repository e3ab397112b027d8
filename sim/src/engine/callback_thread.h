// The sim backend's single host-callback thread (docs/design.md section 3): callbacks handed over
// by stream markers wait here and run FIFO, one at a time, each taking callback_run_ns plus what
// its body charges on the thread's own clock. Pure state; SimDevice (sim_device_streams.cpp) runs
// them over the event queue.
#pragma once
#include <cstdint>
#include <deque>
#include <string>

#include "allocsim/core/backend.h"

namespace allocsim {

struct SimCallback {
  std::uint64_t id = 0;  // the marker's callback id (its hand-off sync key)
  HostFn fn;
  std::string what;
};

struct CallbackThread {
  std::deque<SimCallback> queue;  // handed over, not started
  bool busy = false;              // one is running (until its done event)
  TimeNs now = 0;                 // the thread's clock while a callback body runs
  TimeNs start = 0;               // when the running one started
  std::string running;            // what the running one is (for the observer's span)
  std::uint64_t next_id = 0;      // ids of enqueued markers: 1, 2, ...

  bool idle() const { return !busy && queue.empty(); }
  std::size_t pending() const { return queue.size() + (busy ? 1 : 0); }
};

}  // namespace allocsim
