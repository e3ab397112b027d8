// Observers subscribe to what a run does; they never change its outcome (race detector, memory
// stats, Perfetto writer). Happens-before is expressed ThreadSanitizer-style as release/acquire on
// sync objects, so the race detector needs no knowledge of streams, events or semaphores.
#pragma once
#include <cstdint>
#include <string_view>

#include "allocsim/core/backend.h"
#include "allocsim/core/program.h"
#include "allocsim/core/types.h"

namespace allocsim {

/// Agents that carry a vector clock: the host thread, the callback thread, and each stream.
inline constexpr AgentId kHostAgent = 0;
inline constexpr AgentId kCallbackAgent = 1;
inline constexpr AgentId stream_agent(StreamId s) { return 2 + s; }

/// A sync object key: kind in the top byte, id below. Release(agent, key) publishes the agent's
/// clock into the object; acquire(agent, key) joins it into the agent's clock.
// CallbackDone: a callback returned, and its marker's stream goes on (one release, one acquire).
// Mutex: a host mutex (id: MutexId): unlock releases it, lock acquires it, like Semaphore.
enum class SyncKind : std::uint8_t { EnqueuedOp, Event, StreamDrain, CallbackHandoff, Semaphore, AllIdle, CallbackDone, Mutex };
inline constexpr std::uint64_t sync_key(SyncKind k, std::uint64_t id) {
  return (std::uint64_t(k) << 56) | (id & ((std::uint64_t(1) << 56) - 1));
}

struct MemoryCounters {
  std::uint64_t live = 0;     // held by the host
  std::uint64_t pending = 0;  // released by the host, not yet back in the pool
  std::uint64_t in_use = 0;   // pool view (chunk bytes), = live + pending in chunk bytes
  std::uint64_t pool = 0;     // bytes the pool holds from the device
};

/// A device op as executed on a stream.
struct DeviceOpSpan {
  std::uint64_t op_seq = 0;  // unique per run, in enqueue order
  StreamId stream = kNoStream;
  DeviceOpKind kind = DeviceOpKind::Kernel;
  // "kernel", "memset", "callback-marker", "event-record", a scenario's kernel name...: static
  // storage or storage that outlives the run (observers may keep the view and key on its address)
  std::string_view label;
  TimeNs start = 0, end = 0;
  TimeNs enqueued = 0;  // when the host (or a callback) enqueued it
};

/// on_host_blocked's `why` for a host launch that waited inside the driver for one of the host
/// callbacks it holds to return (PlatformProfile::pending_callback_limit): the launch's own time,
/// as the HIP backend's timers see it, not a wait step of a plan.
inline constexpr std::string_view kCallbackSlotWait = "callback-slot";

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_stream_created(StreamId s, std::string_view name) { (void)s, (void)name; }
  // -- happens-before
  virtual void on_release_sync(AgentId a, std::uint64_t key) { (void)a, (void)key; }
  virtual void on_acquire_sync(AgentId a, std::uint64_t key) { (void)a, (void)key; }
  // -- memory accesses: reads at op start, writes at op end (manifest timeline), by stream agents
  //    or by the host. `alloc` is the allocation (BufferId) the program meant to touch.
  virtual void on_access(AgentId a, std::uint64_t op_seq, BufferId alloc, AddrRange range, bool write, TimeNs t) {
    (void)a, (void)op_seq, (void)alloc, (void)range, (void)write, (void)t;
  }
  // -- buffer lifetime
  virtual void on_alloc(AgentId a, const BufferInfo& buf, TimeNs t) { (void)a, (void)buf, (void)t; }
  virtual void on_host_release(const BufferInfo& buf, TimeNs t) { (void)buf, (void)t; }
  virtual void on_pool_free(AgentId a, const Chunk& c, BufferId buf, TimeNs t) { (void)a, (void)c, (void)buf, (void)t; }
  virtual void on_pool_destroyed(PoolId p, TimeNs t) { (void)p, (void)t; }
  // -- timeline (trace writer, stats)
  virtual void on_device_op(const DeviceOpSpan& span) { (void)span; }
  virtual void on_host_blocked(TimeNs from, TimeNs to, std::string_view why) { (void)from, (void)to, (void)why; }
  virtual void on_callback_run(TimeNs start, TimeNs end, std::string_view what) { (void)start, (void)end, (void)what; }
  virtual void on_memory(TimeNs t, const MemoryCounters& m) { (void)t, (void)m; }
  virtual void on_end(TimeNs t) { (void)t; }
};

}  // namespace allocsim
