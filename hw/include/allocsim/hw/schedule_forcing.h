// How `allocsim-hw validate --schedule` forces a schedule's delays (core/schedule.h,
// docs/explore.md) on the GPU, as host-side bookkeeping the HIP backend follows and the tests
// check without a GPU: which delays the HIP backend can force, and, while a trial runs, which gate,
// signal or event goes with each launch and host op.
//
//  - stream S op J until stream T op J': a gate kernel on S before S's J-th device op spins on the
//    delay's device flag; a signal kernel on T right after T's J'-th op sets it.
//  - stream S op J until host op M: the same gate; the signal kernel goes on the backend's own
//    signal stream once host op M's plan has run.
//  - host op N until stream T op J': an event recorded on T right after its J'-th op; the host
//    waits for it (bounded) before it takes op N. The op must have been launched by then: host op
//    N is the host's own step, nothing else launches device ops.
//  - host op N until host op M < N: always done already (the host takes its ops in order).
// Callback steps are not forceable yet (the callback thread has no gate); plan_forcing says so.
//
// Counting, the same as the simulator's: stream op J is the J-th call of Device::launch on that
// stream in one run of the host program (kernels, memsets, copies; a skipped op launches nothing
// and is not counted; event records, waits and callbacks are not ops); host op N is the
// Interpreter's position() when it planned the op (Program::ops index; the preexisting
// allocations made before op 0 belong to no host op).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "allocsim/core/program.h"
#include "allocsim/core/schedule.h"

namespace allocsim::hw {

struct ForcedDelay {
  enum class Kind { StreamUntilStream, StreamUntilHost, HostUntilStream, HostAfterEarlierHost };
  Kind kind = Kind::StreamUntilStream;
  Delay delay;  // as the file gives it
  StreamId hold_stream = kNoStream, until_stream = kNoStream;  // the Stream locators' program indices
};

/// The delays of `s` as the backend forces them. Throws ScheduleError ("SOURCE: delays[i]: ...")
/// for a stream not in the program, a step the program never takes (host op past the program's
/// end, stream op past the device ops the program launches on that stream), and a delay that is
/// "not forceable on the GPU": a callback step, a host op held until a stream op that only a
/// later host op launches, or a step held until a later step of its own agent.
std::vector<ForcedDelay> plan_forcing(const Schedule& s, const Program& program, const std::string& source);

/// Device ops the program launches on each stream when no op is skipped (an upper bound: a
/// skipped op launches nothing), and the host op that launches each.
std::vector<std::vector<std::size_t>> launch_sites(const Program& program);

/// What happened to one delay in one trial.
struct DelayTrial {
  bool held = false;       // its gate was launched / its host wait made (the held step came)
  bool signalled = false;  // its until step came (signal launched, event recorded, host op done)
  bool timed_out = false;  // the gate or wait gave up before the until step was done
};

/// One trial's forcing bookkeeping: the launch counts per stream and each delay's DelayTrial.
class ScheduleForcing {
 public:
  ScheduleForcing(std::vector<ForcedDelay> delays, std::size_t streams);

  void begin_trial();

  /// What goes with the next device op launched on stream `s` (delay indices). Counts the launch.
  struct AtLaunch {
    std::vector<int> gates_before;   // a gate kernel before the op, on `s`
    std::vector<int> signals_after;  // a signal kernel after the op, on `s`
    std::vector<int> events_after;   // an event record after the op, on `s`
  };
  AtLaunch on_launch(StreamId s);
  /// Delays whose host hold is op `op`: the host waits for each one's event before it takes it.
  std::vector<int> waits_before_host_op(std::size_t op);
  /// Delays released by host op `op` being done: a signal kernel on the signal stream for each.
  std::vector<int> signals_after_host_op(std::size_t op);

  void set_timed_out(int delay) { trial_[std::size_t(delay)].timed_out = true; }
  const std::vector<DelayTrial>& trial() const { return trial_; }
  const std::vector<ForcedDelay>& delays() const { return delays_; }
  /// Device ops launched on `s` so far in this trial.
  std::int64_t launched(StreamId s) const { return launches_[std::size_t(s)]; }

 private:
  std::vector<ForcedDelay> delays_;
  std::vector<std::int64_t> launches_;  // per stream, this trial
  std::vector<DelayTrial> trial_;
};

}  // namespace allocsim::hw
