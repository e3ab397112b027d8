// The HIP hardware backend as the rest of the program sees it: a Device (core/device.h) plus the
// trial control that validation needs. This header names no HIP type, so the CLI, the report
// writers and the tests compile with the ordinary C++ compiler; only hw/src/gpu/*.hip see HIP.
//
// Threads: the host thread runs the interpreter and Plans; HIP's own callback thread only moves
// each host callback into a FIFO; ONE callback thread of ours runs them (policy code never runs
// inside the HIP callback). A recursive mutex serialises backend state between the two.
// Every blocking wait is bounded by `wait_timeout_ns` and ends in HwError, never a hang.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "allocsim/core/device.h"
#include "allocsim/core/platform.h"
#include "allocsim/core/platform_spread.h"
#include "allocsim/core/scenario.h"
#include "allocsim/hw/host_calls.h"
#include "allocsim/hw/schedule_forcing.h"

namespace allocsim::hw {

/// A HIP error, a device OOM, a timed-out wait, or no GPU: the message says which.
class HwError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// A bounded wait ran out (starvation / deadlock of the host program under a policy): the run
/// failed, the device is still usable once drained.
class HwTimeout : public HwError {
 public:
  using HwError::HwError;
};
/// A schedule's delay could not be forced in this trial (its host hold came before the host had
/// launched the op it waits for): the run fails as a timed-out one does, with this message.
class ScheduleNotForced : public HwTimeout {
 public:
  using HwTimeout::HwTimeout;
};

struct HwDeviceOptions {
  PlatformProfile platform;  // spin_ns_per_cycle turns op durations into clock64() cycles
  int semaphore = 32;
  Params params;
  TimeNs wait_timeout_ns = 20'000'000'000;  // bound on every blocking wait
  /// Every launched op writes its device start/end time (%globaltimer on NVIDIA) into a device
  /// buffer; end_trial fills TrialStats::timeline (diagnostic: allocsim-hw validate --timeline).
  bool record_timeline = false;
  /// Each trial keeps the host's side only: every policy callback's stages, each semaphore wait,
  /// and each allocation's and pool free's time (TrialStats::timeline_callbacks,
  /// timeline_semaphore_waits, timeline_memory). A few host records per op, no device stamps
  /// (diagnostic: allocsim-hw validate --callback-log); record_timeline keeps them too.
  bool record_callbacks = false;
  /// validate --schedule: the delays forced in every trial (schedule_forcing.h); empty: none.
  std::vector<ForcedDelay> forced;
  /// How long a gate kernel or a host hold waits for its until step before it gives up (and the
  /// trial records the delay as timed out): long next to any op of the validated scenarios, short
  /// enough that a schedule the program cannot follow costs a trial 100 ms per delay, not a hang.
  TimeNs gate_timeout_ns = 100'000'000;
  /// The host thread lets a waiting policy callback take the backend's state lock before its next
  /// call (state_mutex.h says why); false: a plain mutex, which starved callbacks while the host
  /// launched (results/hw/h200-callbacks measured waits up to 2.3 ms, and peaks above the model's).
  bool callbacks_first = true;
};

/// One device op as it ran on the GPU (or in the simulator): times in ns from the first op's start.
/// A policy callback's stages on the host's clock, ns from the trial's start (record_timeline).
struct TimelineCallback {
  std::int64_t enqueued_ns = 0;     // its enqueue (hipStreamAddCallback) returned
  std::int64_t handed_over_ns = 0;  // HIP's callback thread handed it to the relay (the GPU reached it)
  std::int64_t taken_up_ns = 0;     // the relay's thread took it up
  std::int64_t locked_ns = 0;       // it held the backend's state lock (its body starts)
  std::int64_t done_ns = 0;         // its body returned
  std::string what;                 // whose callback: the policy's name, "semaphore-release", ...
  std::string stream;               // the callback stream it was enqueued on ("callback:compute")
};

/// An allocation taking its chunk, or a chunk going back to its pool, on the host's clock in ns from
/// the trial's start (record_callbacks): what the trial's in-use bytes were made of at any moment.
struct TimelineMemoryEvent {
  std::int64_t at_ns = 0;
  BufferId buffer = -1;
  bool allocated = false;  // false: freed into its pool
  std::uint64_t bytes = 0;  // the chunk's
};

/// A wait of the host for a compute-semaphore unit, on the host's clock (record_timeline).
struct TimelineSemaphoreWait {
  std::int64_t since_ns = 0, acquired_ns = 0;
};

struct TimelineOp {
  std::uint64_t seq = 0;  // launch (enqueue) order within the trial
  std::string stream;     // the program's stream name, "callback:<name>" for callback streams
  std::string label;      // DeviceOp::label ("kernel", "memset", a scenario's kernel name...)
  std::string kind;       // "kernel", "memset", "copy", "marker"
  std::int64_t start_ns = 0, end_ns = 0;
  // The GPU's only (has_phases): when the op's last block finished checking what it reads, and
  // when its first block began writing: the read and write instants of the simulator's model
  // (SimDevice::device_phases), measured.
  bool has_phases = false;
  std::int64_t reads_done_ns = 0, writes_start_ns = 0;
  std::uint64_t read_bytes = 0, write_bytes = 0;  // checked / filled by the op kernel
  // Host time of the op's launch (hardware: from the trial's start; simulator: from time 0), so
  // the host's progress through the program compares as the device's does.
  std::int64_t enqueued_ns = 0;
};

/// Foreign words one allocation read, by whose data they were (a diagnostic of which race the
/// hardware hit, to set against the simulator's manifest findings).
struct ForeignSource {
  static constexpr int kZeroing = -1;      // zero words: another allocation's memset
  static constexpr int kEarlierTrial = -2;  // a tag of no allocation of this trial
  BufferId reader = -1;
  int writer = kZeroing;  // the writing allocation's BufferId, or one of the two above
  std::uint64_t words = 0;
};

/// What one trial (one run of the host program) left behind.
struct TrialStats {
  bool aliased = false;               // some allocation got bytes another allocation had held
  std::uint64_t corrupted_words = 0;  // foreign words (another allocation's data or zeroing) seen by reads
  std::uint64_t stale_words = 0;      // reads that saw an older version of their OWN allocation (not corruption)
  std::vector<std::uint64_t> foreign_by_alloc;  // corrupted words per reading allocation (BufferId)
  std::vector<ForeignSource> foreign_sources;   // the same words by writer (empty: not recorded)
  std::uint64_t peak_bytes_in_use = 0;
  std::int64_t peak_in_use_at_ns = 0;  // when in-use first reached that peak, ns from the trial's start
  std::uint64_t releases = 0;
  // Host time spent executing release plans, less the validation's own instrumentation inside them
  // (release_instrument_ns: the stream queries that mark freed bytes still in use, which no real
  // allocator makes); release_calls splits it by backend call, the rest is the release's own
  // bookkeeping. `calls`: every timed call of the host thread in the trial, inside a release plan
  // or not (instrumentation left out likewise; instrument_ns is all of it).
  TimeNs release_host_ns = 0;
  TimeNs release_instrument_ns = 0;
  TimeNs instrument_ns = 0;
  std::array<CallTime, std::size_t(HostCall::kCount)> release_calls{};
  std::array<CallTime, std::size_t(HostCall::kCount)> calls{};
  // Each call's own time, in ns (capped at 2^32 - 1), by kind: calibration takes the median, as a
  // mean would carry the rare call that blocks on a full launch queue into every call's cost.
  std::array<std::vector<std::uint32_t>, std::size_t(HostCall::kCount)> call_samples{};
  // Each release plan's host time besides its calls (and instrumentation), in ns: its bookkeeping.
  std::vector<std::uint32_t> release_bookkeeping_samples;
  TimeNs wall_ns = 0;
  // The host thread's time through the program (run_trial's interpreter loop) less its blocking
  // waits: the same quantity as the simulator's RunMeasures::host_busy_ns, so their ratio is how
  // much slower or faster this host ran the program than the simulator charged (its host pace).
  TimeNs host_busy_ns = 0;
  // The host's launch cadence: the time from one launch (kernel, memset, copy op) to the next,
  // summed over the pairs with no blocking wait between them (waits of at most kWaitedGapNs in
  // all, launch_cadence.h). It leaves out what follows a wait
  // (the wake-up and the work after it), which the host's busy time keeps; the simulator's
  // counterpart is validate_runner.cpp's LaunchCadence. Validation's host pace is its ratio.
  TimeNs host_cadence_ns = 0;
  std::uint64_t ooms = 0, fallbacks = 0, lifetime_violations = 0, callbacks = 0;
  // Per policy callback the relay's thread ran (in run order): how long it waited for the
  // backend's state lock, which the host thread holds through each of its backend calls, and the
  // time from the callback's enqueue to its body's start (host clock, ns, capped at 2^32 - 1). The
  // simulator has no such lock: a callback runs once its stream reaches it and the latency passes.
  std::vector<std::uint32_t> callback_lock_wait_samples, callback_delay_samples;
  // How long each such callback held the state lock (its body), the part of those bodies spent in
  // validation's own checks (stream queries), and the host thread's waits for the lock.
  std::vector<std::uint32_t> callback_hold_samples;
  // ... and the two parts of its delay before the lock: enqueue to HIP's callback thread handing
  // it over (the GPU reaching it, and the driver), and that to the relay's thread taking it up.
  std::vector<std::uint32_t> callback_reach_samples, callback_wake_samples;
  TimeNs callback_instrument_ns = 0, host_lock_wait_ns = 0;
  // HwDeviceOptions::record_timeline: every op launched in the trial, in launch order (ops past
  // the buffer's capacity, or whose kernel never wrote its times, are left out: timeline_dropped).
  std::vector<TimelineOp> timeline;
  std::uint64_t timeline_dropped = 0;
  // ... and the host's side of it: each policy callback's stages and each wait for a
  // compute-semaphore unit (TimelineCallback, TimelineSemaphoreWait), so a release's path from
  // the GPU to the host's next launch reads stage by stage (results/hw/h200-release).
  std::vector<TimelineCallback> timeline_callbacks;
  std::vector<TimelineSemaphoreWait> timeline_semaphore_waits;
  std::vector<TimelineMemoryEvent> timeline_memory;  // record_callbacks: in event order
  std::vector<DelayTrial> forced;  // HwDeviceOptions::forced: what each delay did in this trial
};

class HwDevice : public Device {
 public:
  /// Fresh pools over the same device regions, zeroed counters, full semaphore, and a chooser seeded
  /// from the trial's run seed as simulate() seeds its own (seeds::run_draws).
  virtual void begin_trial(std::uint64_t seed) = 0;
  /// Drain all streams and callbacks (bounded), read the device counters.
  virtual TrialStats end_trial() = 0;
  /// Run a Plan: Do steps at once, Wait steps as real bounded blocking calls.
  virtual void execute(Plan plan) = 0;
  /// Host time attribution: the interpreter is about to run the plan of a Release op.
  virtual void begin_release_timing() = 0;
  virtual void end_release_timing() = 0;
  /// The host is about to take / has run the plan of host op `op` (Interpreter::position()):
  /// where a schedule's host holds wait and its "until host op" signals go (schedule_forcing.h).
  /// Throws ScheduleNotForced when a host hold's until op was not launched yet.
  virtual void begin_host_op(std::size_t op) = 0;
  virtual void end_host_op(std::size_t op) = 0;
  virtual std::string description() const = 0;
  /// The host thread's time in blocking waits (HostCall::Wait) so far in this trial.
  virtual TimeNs host_wait_ns() const = 0;
};

/// Opens GPU 0, allocates one device region per pool. Throws HwError (no GPU, HIP error, OOM).
std::unique_ptr<HwDevice> make_hip_device(const Scenario& scenario, const HwDeviceOptions& options);

/// `allocsim-hw calibrate`: measured costs (medians), and the raw samples summary for the log.
struct CalibrationOutput {
  PlatformProfile profile;
  PlatformSpread spread;  // each cost's distribution (issue 17), where calibration has samples of it
  std::string device;
  std::vector<std::pair<std::string, double>> extra;  // name -> value (ns unless named otherwise)
};
/// `iterations` samples per device-side measurement; `tail_rounds` of the callback thread's wake-ups
/// (idle stream and behind a kernel), whose tails above p99.9 the simulator draws.
CalibrationOutput calibrate_device(int iterations, int tail_rounds);

/// validate's own measurement of the semaphore release's path (hw/src/gpu/release_path.h): the
/// kernel's end to the callback's body, `rounds` samples in ns, taken in the calling process on a
/// stream of its own (about 0.7 ms each). The calibrating process's differs from it
/// (results/hw/h200-release).
std::vector<double> measure_process_release_path(double spin_ns_per_cycle, int rounds);

/// The same measurement on a stream of its own that lives as long as the timer, for timing the
/// release between trials (validate --release-per-trial): the release path moves within a process
/// as the host's pace does, and one measurement before the trials cannot follow it.
class ReleasePathTimer {
 public:
  explicit ReleasePathTimer(double spin_ns_per_cycle);
  ~ReleasePathTimer();
  ReleasePathTimer(const ReleasePathTimer&) = delete;
  ReleasePathTimer& operator=(const ReleasePathTimer&) = delete;
  /// ~100 ms of spinning, so an idle GPU's clock is up before the first round.
  void warm_clocks();
  /// `rounds` releases one at a time: the kernel's end to the callback's body, ns, in round order.
  std::vector<double> after_op(int rounds);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// One line naming the GPU, or throws HwError when there is none.
std::string describe_gpu();

}  // namespace allocsim::hw
