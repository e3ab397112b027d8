// Device kernels of the HIP backend (HIP-only header: included by hw/src/gpu/*.hip).
//
// One launch per device op: every block first checks the op's read segments (counting words that
// differ from the expected pattern into per-allocation device counters: foreign words, i.e.
// manifest corruption, and stale words of the same allocation, reported apart), then spins for the op's
// duration in clock64() cycles, then fills the write segments. Reads happen at the start and
// writes at the end, as in the simulator's manifest timeline.
#pragma once
#include <hip/hip_runtime.h>

#include <cstdint>

#include "allocsim/hw/hw_device.h"
#include "allocsim/hw/timeline.h"

namespace allocsim::hw {

/// The device clock the op kernel stamps: %globaltimer counts ns; AMD's wall_clock64() runs at a
/// constant 100 MHz on gfx9 / CDNA (these HIP headers offer no attribute to read it).
#if defined(__HIP_PLATFORM_NVIDIA__)
inline constexpr double kTimelineNsPerTick = 1.0;
#else
inline constexpr double kTimelineNsPerTick = 10.0;
#endif

inline constexpr int kMaxSegments = 8;  // per direction per op; more are dropped with a warning

struct KernelSegment {
  std::uint32_t* base = nullptr;  // device pointer to the allocation's first byte
  std::uint64_t first_word = 0;   // word index from the allocation start
  std::uint64_t count = 0;        // words
  std::int32_t alloc = -1;
  std::uint32_t tag = 0;          // allocation_tag of this allocation (pattern.h)
  std::uint32_t version = 0;      // kZeroVersion: zeros
};

struct OpDescriptor {
  KernelSegment reads[kMaxSegments];
  KernelSegment writes[kMaxSegments];
  int num_reads = 0, num_writes = 0;
  long long spin_cycles = 0;
  unsigned long long* mismatch_counters = nullptr;  // foreign words, indexed by allocation id
  unsigned long long* stale_counters = nullptr;     // stale own-allocation words, same index
  // Whose data a foreign word was (diagnostic, null: off): source_counters[reader * (allocs + 2) +
  // writer] counts foreign words by writer: an allocation of this trial (its id, from the word's
  // tag less tag_origin), allocs for a zero word (another allocation's memset), allocs + 1 for a
  // tag of no allocation of this trial (data left by an earlier trial).
  unsigned long long* source_counters = nullptr;
  unsigned allocs = 0;
  std::uint32_t tag_origin = 0;  // allocation_tag(serial of allocation 0 of this trial) - 1
  unsigned max_blocks = 1;                          // one wave: the device's multiprocessor count
  // Timeline recording (HwDeviceOptions::record_timeline), null: off. Thread 0 of every block
  // folds its times into the op's kTimelineStampsPerOp stamps (timeline.h) from
  // timestamps[kTimelineStampsPerOp * op_index]: earliest values as atomicMax of ~t, latest as
  // atomicMax of t. Times: %globaltimer ns on NVIDIA, wall_clock64() ticks on AMD.
  unsigned long long* timestamps = nullptr;
  unsigned op_index = 0;
};

/// Launch the op kernel on `stream` (asynchronous). Returns the launch's error code.
hipError_t launch_op(const OpDescriptor& op, hipStream_t stream);
/// A spin of `cycles` on one thread (calibration).
hipError_t launch_spin(long long cycles, hipStream_t stream);
/// An empty kernel (launch-overhead calibration).
hipError_t launch_empty(hipStream_t stream);

/// validate --schedule (schedule_forcing.h): one thread that spins until `*flag` is non-zero, or,
/// after `timeout_ticks` of the device clock (kTimelineNsPerTick ns each), gives up and sets
/// `*timed_out` to 1, so a schedule that never signals delays its stream instead of hanging it.
hipError_t launch_gate(unsigned* flag, unsigned* timed_out, unsigned long long timeout_ticks, hipStream_t stream);
/// Sets `*flag` to 1 once everything before it on `stream` is done (the gate's release).
hipError_t launch_signal(unsigned* flag, hipStream_t stream);
/// Sets `*flag` (the device pointer of mapped host memory) to `value` once everything before it on
/// `stream` is done, so a host thread polling it sees the stream's progress (calibration).
hipError_t launch_host_flag(unsigned* flag, unsigned value, hipStream_t stream);

}  // namespace allocsim::hw

#define ALLOCSIM_HIP_CHECK(expr)                                                                    \
  do {                                                                                              \
    hipError_t allocsim_err_ = (expr);                                                              \
    if (allocsim_err_ != hipSuccess)                                                                \
      throw ::allocsim::hw::HwError(std::string("HIP error in ") + #expr + ": " +                   \
                                    hipGetErrorString(allocsim_err_));                              \
  } while (0)
