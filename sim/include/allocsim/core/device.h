// Device: what the host-program interpreter needs beyond what policies use (Backend). Both the
// sim engine and the HIP backend implement it, so one interpreter (allocsim/engine/interpreter.h) turns
// HostOps into Plans for both.
//
// Stream ids: backend streams 0..n-1 are the program's streams in Program::streams order
// (0 = compute); callback streams are created after them by callback_stream().
#pragma once
#include <string_view>
#include <vector>

#include "allocsim/core/backend.h"
#include "allocsim/core/program.h"
#include "allocsim/core/result.h"

namespace allocsim {

struct DeviceAccess {
  BufferId alloc = -1;  // the allocation the program meant to touch
  AddrRange range;      // absolute pool addresses
};

/// A kernel / memset / copy as launched: duration already drawn from its distribution.
struct DeviceOp {
  DeviceOpKind kind = DeviceOpKind::Kernel;  // Kernel / Memset / Copy
  TimeNs duration = 0;
  std::vector<DeviceAccess> reads, writes;
  std::string_view label;  // "kernel", "memset", "copy" or a scenario-given name (static storage)
};

class Device : public Backend {
 public:
  /// Enqueue a device op on `s` (charges launch_overhead on the host).
  virtual void launch(StreamId s, DeviceOp op) = 0;
  /// Host computes for `d` (no device work).
  virtual void host_delay(TimeNs d) = 0;
  /// Give one compute-semaphore unit back (runs on the callback thread).
  virtual void semaphore_release() = 0;
  /// Destroy a pool (shutdown). Later pool_free calls on it are lifetime violations, reported.
  virtual void destroy_pool(PoolId pool) = 0;
  // ---- host mutexes (Program::mutex_names; docs/design.md section 3). The host takes one with a
  // Step::lock_mutex; these are the other two halves.
  /// The host gives mutex `m` back. One it does not hold is warned about and ignored.
  virtual void mutex_unlock(MutexId m) = 0;
  /// A program's host callback on stream `s` (hipStreamAddCallback, counted like add_host_callback):
  /// its body takes `locks` in order (the callback thread blocks while another agent holds one),
  /// runs for `body_ns`, then releases them. The marker holds `s` until the body returned, so a
  /// host that holds one of `locks` while it waits for `s` deadlocks. Returns false if the enqueue
  /// failed (param callback_enqueue_failure); the body never runs.
  virtual bool add_program_callback(StreamId s, std::vector<MutexId> locks, TimeNs body_ns) = 0;
  /// Give event `e` a readable name (the program's event name) for messages. Optional.
  virtual void label_event(EventId e, std::string_view name) { (void)e, (void)name; }

  // ---- accounting + lifetime checks the interpreter reports
  virtual void note_alloc(const BufferInfo& buf) = 0;         // after a successful allocation
  virtual void note_host_release(const BufferInfo& buf) = 0;  // host refcount -> 0 (live -> pending)
  virtual void note_oom(StreamId s, std::uint64_t bytes, bool scratch) = 0;
  /// A program error the interpreter found (released twice, released but never allocated, used
  /// after release, still held at the end): a lifetime finding of kind `kind`, which the device
  /// counts (see engine/lifetime_findings.h for why the device owns them).
  virtual void note_lifetime_violation(FindingKind kind, const BufferInfo& buf, std::string detail) = 0;
};

}  // namespace allocsim
