// The host program: what a scenario asks the host thread to do, as a flat list of host ops.
// Scenarios (YAML, built-ins, PyTorch traces) compile to this; the sim engine and the HIP backend
// both interpret it. Loops are expanded by the loader, so the interpreter is a simple cursor.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "allocsim/core/types.h"

namespace allocsim {

/// A duration distribution in nanoseconds. Sampled only through a Chooser (chooser.h) so every
/// random choice is seeded and replaceable by a schedule explorer.
struct Duration {
  enum class Kind : std::uint8_t { Fixed, Uniform, Normal, LogNormal, Exponential };
  Kind kind = Kind::Fixed;
  double a = 0;  // Fixed: value. Uniform: lo. Normal/LogNormal: mean (of the duration). Exponential: mean.
  double b = 0;  // Uniform: hi. Normal/LogNormal: stddev (of the duration). Others: unused.
  static Duration fixed(double ns) { return {Kind::Fixed, ns, 0}; }
};

/// A byte range inside one buffer. bytes == 0 means "to the end of the buffer".
struct BufferAccess {
  BufferId buffer = -1;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

enum class HostOpKind : std::uint8_t {
  Alloc,           // buffer, stream, bytes: allocate from the pool for `stream` (guard applies if stream != compute)
  Release,         // buffer: host refcount -> 0; the free policy decides what happens
  Kernel,          // stream, duration, reads, writes
  Memset,          // stream, duration, writes (zeroing scratch)
  Copy,            // stream, duration, reads (src), writes (dst)
  RecordEvent,     // event (program-level event id), stream
  StreamWait,      // stream waits on event
  EventSync,       // host blocks until event completes
  EventQuery,      // host polls event once (happens-before only if it reports done)
  StreamSync,      // host blocks until stream drains
  DeviceSync,      // host blocks until every stream drains
  BeginExecution,  // host acquires one compute-semaphore unit (blocks if none left)
  EndExecution,    // ThenExecuteCallback(compute, release the unit); batched policies flush here
  HostDelay,       // host computes for `duration`
  Shutdown,        // tear down device state (drain callback streams, destroy pool); see wrong_order
  // Host mutexes (docs/design.md section 3): real XLA deadlocked through a host lock that a host
  // callback needed while the host waited for the callback's stream (openxla/xla #6318, #43489).
  Lock,            // mutexes[0]: the host takes it, blocking while the callback thread holds it
  Unlock,          // mutexes[0]: the host gives it back (it must hold it)
  HostCallback,    // stream, mutexes, duration: a host callback on `stream` whose body takes
                   // `mutexes` in order, runs for `duration`, then releases them
};

/// What a stream runs (DeviceOp, DeviceOpSpan): the device ops a program launches (Kernel, Memset,
/// Copy) and the markers a backend puts on streams itself (event record, event wait, callback
/// hand-off), which take no time of their own and touch no memory.
enum class DeviceOpKind : std::uint8_t { Kernel, Memset, Copy, Marker };

struct HostOp {
  HostOpKind kind = HostOpKind::HostDelay;
  StreamId stream = kNoStream;  // index into Program::streams
  BufferId buffer = -1;         // Alloc / Release
  std::uint64_t bytes = 0;      // Alloc
  EventId event = kNoEvent;     // RecordEvent / StreamWait / EventSync / EventQuery (program event ids)
  bool wrong_order = false;     // Shutdown: destroy the pool before draining callbacks (the bug)
  Duration duration;            // Kernel / Memset / Copy / HostDelay / HostCallback (its body)
  std::vector<BufferAccess> reads;
  std::vector<BufferAccess> writes;
  std::uint32_t source_line = 0;  // for messages: the scenario line that produced this op (0 = none)
  /// Lock / Unlock: the one mutex; HostCallback: the mutexes its body takes, in this order.
  /// Last, so that aggregate initialisers written before it (bench/) still fit.
  std::vector<MutexId> mutexes;
};

/// Stream roles. Index 0 is always the compute stream. Callback streams are not listed: the
/// backend creates one per source stream lazily (XLA's callback stream per stream).
struct StreamSpec {
  std::string name;      // "compute", "autotune", "h2d", ...
  bool is_compute = false;
};

struct Program {
  std::vector<StreamSpec> streams;        // streams[0] is compute
  std::vector<std::string> buffer_names;  // BufferId -> name (size = number of buffers)
  std::vector<std::string> event_names;   // program EventId -> name
  std::vector<std::string> mutex_names;   // MutexId -> name (host mutexes: Lock, Unlock, HostCallback)
  std::vector<HostOp> ops;
  /// Buffers allocated at program start before the recording began (PyTorch traces): their
  /// Release ops free memory the program never saw allocated. Empty for normal scenarios.
  std::vector<BufferId> preexisting;
  /// Sizes of the preexisting buffers, parallel to `preexisting` (bytes to allocate at start).
  std::vector<std::uint64_t> preexisting_bytes;
};

}  // namespace allocsim
