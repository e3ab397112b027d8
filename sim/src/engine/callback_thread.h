// The sim backend's single host-callback thread (docs/design.md section 3): callbacks handed over
// by stream markers wait here and run FIFO, one at a time, each taking callback_run_ns plus what
// its body charges on the thread's own clock. A marker reached while the thread sleeps (idle, and
// not just finishing a callback) first wakes it: callback_latency_ns, or callback_after_op_ns when
// the marker waited behind device work (results/hw/h200-chain). The H200 measured both: ~12 us
// from a marker on an idle stream to its callback, ~1.1 us between callbacks queued back to back
// (results/hw/h200/calibration.json), so the wake-up is paid once per burst, not per callback.
// Pure state; SimDevice (sim_device_streams.cpp) runs them over the event queue.
#pragma once
#include <cstdint>
#include <deque>
#include <string>

#include "allocsim/core/backend.h"

namespace allocsim {

struct SimCallback {
  std::uint64_t id = 0;  // the marker's callback id (its hand-off sync key)
  StreamId stream = kNoStream;  // the marker's stream, held until this callback returns (CUDA); kNoStream through a relay
  HostFn fn;
  std::string what;
};

struct CallbackThread {
  std::deque<SimCallback> queue;  // handed over, not started
  bool busy = false;              // one is running (until its done event)
  bool waking = false;            // asleep when a marker came: wakes at a queued wake event
  TimeNs last_done = -1;          // when the last callback returned (-1: none yet)
  StreamId running_stream = kNoStream;  // the running one's marker stream
  std::uint64_t running_id = 0;         // the running one's id
  TimeNs now = 0;                 // the thread's clock while a callback body runs
  TimeNs start = 0;               // when the running one started
  std::string running;            // what the running one is (for the observer's span)
  std::uint64_t next_id = 0;      // ids of enqueued markers: 1, 2, ...

  bool idle() const { return !busy && queue.empty(); }
  /// A marker reached at `t` must wake the thread first: nothing runs or waits, and the last
  /// callback did not return at this very instant (back to back: the thread is still awake).
  bool asleep_at(TimeNs t) const { return idle() && last_done != t; }
  std::size_t pending() const { return queue.size() + (busy ? 1 : 0); }
};

}  // namespace allocsim
