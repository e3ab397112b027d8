// The Backend interface: everything a free policy or a guard may ask of a device runtime.
// The sim backend (sim/engine) implements it in virtual time; the HIP backend (hw/) with real HIP
// calls. Policies and guards use ONLY this header (plus policy.h), so they run unchanged on both.
//
// Blocking is never a call: a policy appends Steps to a Plan. `Do` steps run non-blocking backend
// calls at once; `Wait*` steps block the host thread (virtual time in the sim, a real synchronize on
// hardware). A Do step may append follow-up steps to `next`; they run before the rest of the plan.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allocsim/core/chooser.h"
#include "allocsim/core/params.h"
#include "allocsim/core/types.h"

namespace allocsim {

class Backend;
struct Step;
using Plan = std::vector<Step>;

/// `--set callback_enqueue_failure=P`: the injected probability that add_host_callback fails.
/// Its one owner is here, with its readers: both backends' add_host_callback read it through
/// callback_enqueue_failure(), and the policies that free through callbacks declare it
/// (policy_util::kCallbackEnqueueFailure, for `allocsim list` and the loader) from these two
/// constants, so the key and the default the engine applies cannot drift apart.
inline constexpr std::string_view kCallbackEnqueueFailureKey = "callback_enqueue_failure";
inline constexpr double kCallbackEnqueueFailureDefault = 0;
inline double callback_enqueue_failure(const Params& params) {
  return params.get(std::string(kCallbackEnqueueFailureKey), kCallbackEnqueueFailureDefault);
}

/// A chunk handed out by a pool. `bytes` is the chunk size (>= the rounded request).
struct Chunk {
  PoolId pool = kSharedPool;
  Addr addr = 0;
  std::uint64_t bytes = 0;
};

/// A buffer as policies see it at release / allocation time.
struct BufferInfo {
  BufferId id = -1;
  Chunk chunk;
  std::uint64_t requested_bytes = 0;
  StreamId alloc_stream = kNoStream;
  StreamId last_use_stream = kNoStream;  // stream of the last enqueued device op touching it
  std::uint64_t use_stream_mask = 0;     // bit s set if stream s ever touched it
  TimeNs alloc_time = 0;
};

/// A function run on the callback thread (a host callback / ThenExecuteCallback body).
using HostFn = std::function<void(Backend&)>;

struct Step {
  enum class Kind : std::uint8_t {
    Do,          // run `fn` now on the host thread (non-blocking backend calls only)
    WaitEvent,   // host blocks until `event` completed (hipEventSynchronize)
    WaitStream,  // host blocks until `stream` drained (hipStreamSynchronize)
    WaitAll,     // host blocks until every stream and the callback thread are idle (device sync)
    WaitPoolFree,     // host blocks until any chunk returns to `pool`, or until absolute time `deadline`
    AcquireSemaphore,  // host takes one compute-semaphore unit, blocking while none is left
    LockMutex          // host takes host mutex `mutex`, blocking while another agent holds it
  };
  Kind kind = Kind::Do;
  /// A Wait step of the program's own synchronisation (its event_sync / stream_sync / device_sync
  /// ops, shutdown's drain), not one a policy or guard asked for: the time the host spends blocked
  /// in it counts as `sync`, not `policy` (RunMeasures::host_blocked_*_ns). Next to `kind`, in its
  /// padding: a larger Step costs the host's step queue (a deque) measurably.
  bool program_sync = false;
  std::function<void(Backend&, Plan& next)> fn;
  EventId event = kNoEvent;
  StreamId stream = kNoStream;
  PoolId pool = kSharedPool;
  MutexId mutex = kNoMutex;  // LockMutex (fills the padding before `deadline`: no larger Step)
  TimeNs deadline = kNever;

  static Step run(std::function<void(Backend&, Plan&)> f) { Step s; s.fn = std::move(f); return s; }
  static Step wait_event(EventId e) { Step s; s.kind = Kind::WaitEvent; s.event = e; return s; }
  static Step wait_stream(StreamId st) { Step s; s.kind = Kind::WaitStream; s.stream = st; return s; }
  static Step wait_all() { Step s; s.kind = Kind::WaitAll; return s; }
  static Step acquire_semaphore() { Step s; s.kind = Kind::AcquireSemaphore; return s; }
  static Step lock_mutex(MutexId m) { Step s; s.kind = Kind::LockMutex; s.mutex = m; return s; }
  static Step wait_pool_free(PoolId p, TimeNs deadline) {
    Step s; s.kind = Kind::WaitPoolFree; s.pool = p; s.deadline = deadline; return s;
  }
  /// `s` marked as the program's own synchronisation (program_sync).
  static Step of_program(Step s) { s.program_sync = true; return s; }
};

class Backend {
 public:
  virtual ~Backend() = default;

  // ---- time, randomness, parameters, diagnostics
  virtual TimeNs now() const = 0;  // host thread's current time
  virtual Chooser& chooser() = 0;
  virtual const Params& params() const = 0;
  virtual void warn(std::string message) = 0;  // logged once per run per distinct text + counted

  // ---- streams and events (each call charges host time from the platform profile)
  virtual StreamId compute_stream() const = 0;
  /// XLA's callback stream for `source`, created on first use.
  virtual StreamId callback_stream(StreamId source) = 0;
  virtual EventId create_event() = 0;
  virtual void destroy_event(EventId e) = 0;
  virtual void record_event(EventId e, StreamId s) = 0;
  virtual void stream_wait(StreamId s, EventId e) = 0;
  /// Host polls `e` once. true => completed (and a happens-before edge to the host).
  virtual bool query_event(EventId e) = 0;
  /// hipStreamAddCallback: stream `s` reaches a marker that hands `fn` to the callback thread.
  /// Returns false if the enqueue failed (injected: param callback_enqueue_failure); fn never runs.
  virtual bool add_host_callback(StreamId s, HostFn fn, std::string_view what) = 0;

  // ---- pools (pool 0: shared BFC pool; pool 1: the private autotune pool)
  /// nullopt on OOM. Counts toward allocs only through the interpreter, not here.
  virtual std::optional<Chunk> pool_allocate(PoolId pool, std::uint64_t bytes) = 0;
  /// Return a chunk to its pool, from whichever agent is running now (host or callback thread).
  /// `buffer` names the allocation for accounting (pending -> free) and the race detector.
  virtual void pool_free(const Chunk& chunk, BufferId buffer) = 0;
  virtual bool pool_alive(PoolId pool) const = 0;  // false after shutdown destroyed it

  // ---- counters the interpreter/policies bump (reported in counts.*)
  virtual void count_fallback() = 0;  // deferred free fell back to an immediate free

  // ---- XLA's ThenExecuteCallback(S, fn): C(S) waits on an event recorded on S, then C(S) hands
  // `fn` to the callback thread. Returns false (fn never runs) if the callback enqueue failed.
  bool then_execute_callback(StreamId s, HostFn fn, std::string_view what) {
    EventId e = create_event();
    record_event(e, s);
    StreamId cs = callback_stream(s);
    stream_wait(cs, e);
    destroy_event(e);  // safe: a destroyed-after-wait event is still waited on (CUDA semantics)
    return add_host_callback(cs, std::move(fn), what);
  }
};

}  // namespace allocsim
