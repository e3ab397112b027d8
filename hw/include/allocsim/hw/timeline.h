// Device-op timelines of one validate trial, hardware next to simulator (diagnostic:
// `allocsim-hw validate ... --timeline FILE`). Host-only: no HIP type here.
//
// FILE: {"scenario", "semaphore", "seed", "clock", "combinations": [
//   {"policy", "guard", "trial", "corrupted_words", "corrupted_executions": [execution index...],
//    "dropped", "ops": [{"seq", "stream", "label", "kind", "start_ns", "end_ns", "enqueued_ns", "reads_done_ns",
//                        "writes_start_ns", "read_bytes", "write_bytes"}...],
//    "sim_ops": [same fields, without the phase stamps and bytes],
//    "host_callbacks": [{"what", "stream", "enqueued_ns", "handed_over_ns", "taken_up_ns", "locked_ns",
//                        "done_ns"}...],
//    "semaphore_waits": [{"since_ns", "acquired_ns"}...]}]}
// "ops": the GPU's, from %globaltimer read by block 0 thread 0 of each op's kernel at its start and
// after its writes; "sim_ops": the simulator's DeviceOpSpans for the same program, seed and
// platform. Both in ns from their own first op's start, sorted by start (then seq).
// "host_callbacks" (each policy callback's stages, in run order) and "semaphore_waits" (the host's
// waits for a compute-semaphore unit, in program order): the hardware's, on the host's clock in ns
// from the trial's start, as "enqueued_ns" is.
//
// A callback log (`validate ... --callback-log FILE`) keeps the host's side of EVERY trial, as JSON
// lines: first {"scenario", "semaphore", "clock"}, then one line per trial:
//   {"policy", "guard", "trial", "peak_bytes_in_use", "peak_in_use_at_ns", "host_callbacks": [as above],
//    "semaphore_waits": [as above], "memory": [{"at_ns", "buffer", "allocated", "bytes"}...]}
// "memory": each allocation taking its chunk and each chunk freed into its pool, in order, so what
// held the in-use bytes at the peak reads from it (results/hw/h200-peak-cause).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "allocsim/core/observer.h"
#include "allocsim/hw/hw_device.h"

namespace allocsim::hw {

std::string_view device_op_kind_name(DeviceOpKind k);

/// What the device knows of op `seq` when it launches it.
struct LaunchedOp {
  std::string stream;
  std::string_view label;  // static storage (DeviceOp::label)
  DeviceOpKind kind = DeviceOpKind::Kernel;
  std::uint64_t read_bytes = 0, write_bytes = 0;  // what its check and fill passes cover
  std::int64_t enqueued_ns = 0;  // host time of its launch, from the trial's start
};

/// Device stamps per op (kernels.h): [0] ~(earliest block start), [1] latest block end, [2] latest
/// end of a block's read check, [3] ~(earliest start of a block's writes); 0: never written.
inline constexpr std::size_t kTimelineStampsPerOp = 4;

/// The ops of a trial from the raw device buffer: kTimelineStampsPerOp stamps per op, in device
/// clock ticks of `ns_per_tick`. Ops without a start and an end are counted in `dropped`, not
/// listed; the phase stamps are used when both are there. Times are made relative to the earliest
/// start; the result is sorted by start (then seq).
std::vector<TimelineOp> device_timeline(const std::vector<unsigned long long>& stamps,
                                        const std::vector<LaunchedOp>& ops, double ns_per_tick,
                                        std::uint64_t& dropped);

/// Collects a simulated run's device-op spans (SimOptions::observers).
class SimTimelineObserver final : public Observer {
 public:
  void on_stream_created(StreamId s, std::string_view name) override;
  void on_device_op(const DeviceOpSpan& span) override;
  /// The spans so far, relative to the earliest start, sorted by start (then seq).
  std::vector<TimelineOp> ops() const;

 private:
  std::vector<std::string> stream_names_;
  std::vector<TimelineOp> ops_;
};

struct TimelineCombination {
  std::string policy, guard;
  int trial = 0;
  std::uint64_t corrupted_words = 0;
  std::vector<int> corrupted_executions;
  std::uint64_t dropped = 0;
  std::vector<TimelineOp> ops, sim_ops;
  std::vector<TimelineCallback> callbacks;            // the hardware's, in run order
  std::vector<TimelineSemaphoreWait> semaphore_waits;  // the hardware's, in program order
};

struct TimelineFile {
  std::string scenario;
  int semaphore = 0;
  std::uint64_t seed = 0;  // the trial's run seed (hardware and simulator)
  std::vector<TimelineCombination> combinations;
};

/// One trial's host side in a callback log.
struct CallbackLogTrial {
  std::string policy, guard;
  int trial = 0;
  std::uint64_t peak_bytes_in_use = 0;
  std::int64_t peak_in_use_at_ns = 0;
  std::vector<TimelineCallback> callbacks;
  std::vector<TimelineSemaphoreWait> semaphore_waits;
  std::vector<TimelineMemoryEvent> memory;
};

struct CallbackLog {
  std::string scenario;
  int semaphore = 0;
  std::vector<std::string> buffer_names;  // BufferId -> name, for "memory"
  std::vector<CallbackLogTrial> trials;
};

std::string timeline_json(const TimelineFile& file);
/// Writes timeline_json(file) to `path`, whole or not at all.
void write_timeline_file(const std::string& path, const TimelineFile& file);

std::string callback_log_lines(const CallbackLog& log);
/// Writes callback_log_lines(log) to `path`, whole or not at all.
void write_callback_log(const std::string& path, const CallbackLog& log);

}  // namespace allocsim::hw
