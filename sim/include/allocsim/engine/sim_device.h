// The sim backend: a Device in integer-nanosecond virtual time (docs/design.md section 3).
//
// Entities, each advanced only by events popped from one EventQueue (time, seq):
//  - host thread: executes Plans (engine/interpreter.h). Do steps charge host time from the
//    PlatformProfile; Wait steps block it (blocked time = host stall). The host runs ahead without
//    yielding while no other event is due before its own clock.
//  - streams: FIFO of device ops (kernel/memset/copy with a duration, event record, event wait,
//    callback marker). An op starts when the previous op finished, the host has enqueued it and,
//    for a wait, the awaited record completed. Streams overlap freely.
//  - events: each record_event creates a distinct *record*; query/wait/sync look at the event's
//    latest record at call time (CUDA semantics: never recorded = complete).
//  - callback thread: markers hand callbacks over after callback_latency_ns; it runs them FIFO,
//    each callback_run_ns plus what its body charges.
//  - compute semaphore, BFC pools (shared; private created on first use).
// Every happens-before edge is reported to observers as release/acquire on sync keys.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_set>
#include <vector>

#include "allocsim/core/device.h"
#include "allocsim/core/observer.h"
#include "allocsim/core/result.h"
#include "allocsim/core/scenario.h"
#include "allocsim/engine/event_queue.h"
#include "allocsim/engine/lifetime_findings.h"
#include "allocsim/engine/plan_executor.h"
#include "allocsim/pool/device_pools.h"
#include "allocsim/pool/memory_accounting.h"

namespace allocsim {

class Interpreter;
class RaceDetector;

struct SimConfig {
  DeviceSpec device;
  PlatformProfile platform;
  Params params;
  int semaphore = 32;
  std::size_t max_findings = 20;
  std::uint64_t max_events = 0;  // 0 = unbounded
};

class SimDevice final : public Device {
 public:
  /// `program` names the streams (0 = compute) and buffers; `chooser` draws every random choice.
  /// `races` (optional) is called first, then `observers`, in order.
  SimDevice(const Program& program, SimConfig config, Chooser& chooser, std::vector<Observer*> observers,
            RaceDetector* races = nullptr);
  ~SimDevice() override;

  /// Runs the program to the end (or to a deadlock / the event bound). Call once.
  void run(Interpreter& interpreter);
  /// Completion, accounting, counters and warnings: the engine's part of the run's result.
  RunMeasures measures() const;
  /// The run's lifetime findings (complete once run() returned).
  const LifetimeFindings& lifetime() const { return lifetime_; }

  std::uint64_t events_processed() const { return events_processed_; }
  std::size_t stream_count() const { return streams_.size(); }
  const std::string& stream_name(StreamId s) const { return streams_[std::size_t(s)].name; }

  // ---- Backend
  TimeNs now() const override;
  Chooser& chooser() override { return chooser_; }
  const Params& params() const override { return config_.params; }
  void warn(std::string message) override;
  StreamId compute_stream() const override { return 0; }
  StreamId callback_stream(StreamId source) override;
  EventId create_event() override;
  void destroy_event(EventId e) override;
  void record_event(EventId e, StreamId s) override;
  void stream_wait(StreamId s, EventId e) override;
  bool query_event(EventId e) override;
  bool add_host_callback(StreamId s, HostFn fn, std::string_view what) override;
  std::optional<Chunk> pool_allocate(PoolId pool, std::uint64_t bytes) override;
  void pool_free(const Chunk& chunk, BufferId buffer) override;
  bool pool_alive(PoolId pool) const override;
  void count_fallback() override { ++fallbacks_; }

  // ---- Device
  void launch(StreamId s, DeviceOp op) override;
  void host_delay(TimeNs d) override;
  void semaphore_release() override;
  void destroy_pool(PoolId pool) override;
  void label_event(EventId e, std::string_view name) override;
  void note_alloc(const BufferInfo& buf) override;
  void note_host_release(const BufferInfo& buf) override;
  void note_oom(StreamId s, std::uint64_t bytes, bool scratch) override;
  void note_lifetime_violation(FindingKind kind, const BufferInfo& buf, std::string detail) override;

 private:
  enum EvKind : std::uint32_t { kHostResume, kStreamTry, kOpEnd, kHandoff, kCallbackDone };
  enum class Agent : std::uint8_t { Host, Callback };
  enum class HostWait : std::uint8_t { None, Event, Stream, All, PoolFree, Semaphore, Done };

  struct StreamOp {
    enum class Kind : std::uint8_t { Device, Record, Wait, Marker };
    Kind kind = Kind::Device;
    std::uint64_t op_seq = 0;
    TimeNs ready = 0;          // enqueue time: the op cannot start earlier
    std::uint64_t rec = 0;     // Record / Wait: record id; Marker: callback id
    DeviceOp dev;              // Device
    HostFn fn;                 // Marker
    std::string what;          // Marker
  };
  struct Stream {
    std::string name;
    std::deque<StreamOp> ops;
    bool busy = false;          // a device op or a marker hand-off is in flight
    bool try_pending = false;   // a kStreamTry is queued (at try_at)
    TimeNs try_at = 0;
    TimeNs wait_since = 0;      // when the head wait started blocking
    std::uint64_t waiting_rec = 0;  // blocked at a wait on this record
    TimeNs op_start = 0;
    StreamId callback_stream = kNoStream;
  };
  struct Record {
    EventId event = kNoEvent;
    StreamId stream = kNoStream;
    bool done = false;
  };
  struct EventSlot {
    std::uint64_t latest_rec = 0;  // 0 = never recorded
    bool alive = false;
    std::string name;
  };
  struct Callback {
    std::uint64_t id = 0;
    HostFn fn;
    std::string what;
  };

  // event loop + entities
  void dispatch(const QueuedEvent& e);
  void host_run();
  void host_resume(std::uint64_t gen);
  void host_block(HostWait why, TimeNs deadline);
  void host_wake(TimeNs at);
  bool host_wait_satisfied() const;
  void check_host_wait();  // wakes the host if what it waits for is now true
  void acquire_drain(StreamId s);
  void acquire_all_idle();
  void advance(StreamId s);
  void kick(StreamId s, TimeNs at);
  void op_end(StreamId s);
  void handoff(StreamId s);
  void callback_try();
  void callback_done();
  void complete_record(std::uint64_t rec);
  bool stream_idle(StreamId s) const;
  bool all_idle() const;
  std::string describe_blocked() const;
  std::string describe_record(std::uint64_t rec) const;

  // helpers
  AgentId agent() const { return current_ == Agent::Host ? kHostAgent : kCallbackAgent; }
  TimeNs& agent_now() { return current_ == Agent::Host ? host_now_ : cb_now_; }
  void charge(TimeNs cost) {
    mem_.flush();  // host time passes: a deferred release state was visible
    agent_now() += cost;
  }
  bool valid_stream(StreamId s) const { return s >= 0 && std::size_t(s) < streams_.size(); }
  bool valid_event(EventId e) const { return e >= 0 && std::size_t(e) < events_.size() && events_[std::size_t(e)].alive; }
  StreamOp& enqueue(StreamId s, StreamOp::Kind kind);
  void release(AgentId a, std::uint64_t key);
  void acquire(AgentId a, std::uint64_t key);
  /// The record of a lifetime finding the host or a callback ran into now.
  Finding lifetime_record(FindingKind kind, const BufferInfo& buf, AddrRange range, std::string detail);
  /// The record of a leak found at the end: an allocation never returned to a live pool.
  Finding unreturned_record(const BufferInfo& buf, TimeNs release_time) const;
  std::string buffer_name(BufferId b) const;

  const Program& program_;
  SimConfig config_;
  Chooser& chooser_;
  std::vector<Observer*> observers_;
  RaceDetector* races_;
  Interpreter* interp_ = nullptr;

  // Makes one observer call, call(observer), on the race detector and then every other observer.
  // The detector is called through its own (final) type, so its calls, which queue a record
  // (race/call_queue.h), are inlined here: as virtual calls they were a few percent of a run.
  template <class Call>
  void emit(Call&& call) {
    if (races_) call(*races_);
    for (Observer* o : observers_) call(*o);
  }

  EventQueue queue_;
  TimeNs now_ = 0;  // time of the event being processed
  std::uint64_t events_processed_ = 0;
  bool stopped_ = false;
  std::string stop_reason_;

  // host thread
  Agent current_ = Agent::Host;
  TimeNs host_now_ = 0;
  PlanExecutor plan_;
  HostWait wait_ = HostWait::None;
  bool waking_ = false;
  std::uint64_t host_gen_ = 0;
  TimeNs blocked_since_ = 0;
  std::uint64_t wait_rec_ = 0;
  StreamId wait_stream_ = kNoStream;
  PoolId wait_pool_ = kSharedPool;
  bool host_done_ = false;
  TimeNs host_stall_ = 0;

  // streams, events
  std::vector<Stream> streams_;
  std::vector<Record> records_;  // index = record id; 0 = "never recorded" (always done)
  std::vector<EventSlot> events_;
  std::vector<EventId> free_events_;
  std::uint64_t op_seq_ = 0;

  // callback thread
  std::deque<Callback> callbacks_;
  bool cb_busy_ = false;
  TimeNs cb_now_ = 0;
  std::uint64_t cb_seq_ = 0;
  std::string cb_running_;
  TimeNs cb_start_ = 0;

  // semaphore
  int sem_free_ = 0;

  // pools + accounting (pool/device_pools.h, pool/memory_accounting.h: the same on the HIP backend)
  DevicePools pools_;
  MemoryAccounting mem_;  // flushed (charge, host_block, host_run) when the host does anything else
  std::vector<TimeNs> release_time_;
  TimeNs last_time_ = 0;

  // counters, findings, warnings
  std::uint64_t allocs_ = 0, frees_ = 0, callbacks_run_ = 0, ooms_ = 0, fallbacks_ = 0;
  LifetimeFindings lifetime_{config_.max_findings};
  std::vector<std::string> warnings_;
  std::unordered_set<std::string> warned_;
};

}  // namespace allocsim
