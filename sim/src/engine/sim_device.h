// The sim backend: a Device in integer-nanosecond virtual time (docs/design.md section 3).
//
// A thin façade: the entities each hold their own state, and this class wires them over one
// EventQueue (time, seq), so a run is a pure function of its inputs and the Chooser:
//  - host thread (host_thread.h; behaviour in sim_device_host.cpp): executes Plans
//    (allocsim/engine/interpreter.h). Do steps charge host time from the PlatformProfile; Wait
//    steps block it (blocked time = host stall). It runs ahead without yielding while no other
//    event is due before its own clock.
//  - streams, ops, event records (stream_table.h; behaviour in sim_device_streams.cpp): an op
//    starts when the previous op finished, the host has enqueued it and, for a wait, the awaited
//    record completed. Streams overlap freely.
//  - callback thread (callback_thread.h; behaviour in sim_device_streams.cpp): markers hand
//    callbacks over after callback_latency_ns (callback_after_op_ns behind device work); it runs
//    them FIFO.
//  - host mutexes (mutex_table.h; behaviour in sim_device_mutex.cpp): taken by the host's lock
//    steps and by program callbacks before their bodies, handed straight to a waiting agent.
//  - compute semaphore (a counter here), pools and memory accounting (pool/device_pools.h,
//    pool/memory_accounting.h; calls in sim_device_memory.cpp), lifetime findings
//    (lifetime_findings.h).
// Every happens-before edge is reported to observers as release/acquire on sync keys.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "allocsim/core/device.h"
#include "allocsim/core/observer.h"
#include "allocsim/core/platform_spread.h"
#include "allocsim/core/result.h"
#include "allocsim/core/scenario.h"
#include "allocsim/pool/device_pools.h"
#include "allocsim/pool/memory_accounting.h"
#include "allocsim/race/race_detector.h"
#include "callback_thread.h"
#include "event_queue.h"
#include "host_thread.h"
#include "lifetime_findings.h"
#include "mutex_table.h"
#include "step_control.h"
#include "stream_table.h"

namespace allocsim {

class Interpreter;

struct SimConfig {
  DeviceSpec device;
  PlatformProfile platform;
  const PlatformSpread* spread = nullptr;  // non-null: costs drawn from it (core/platform_spread.h)
  Params params;
  int semaphore = 32;
  std::size_t max_findings = 20;
  std::uint64_t max_events = 0;  // 0 = unbounded
  std::vector<StepHold> holds;   // a schedule's delays (docs/explore.md)
  StepTrace* trace = nullptr;    // non-null: the run's steps are traced into it
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
  /// What became of each of the config's holds (complete once run() returned).
  const std::vector<HoldOutcome>& hold_outcomes() const { return steps_.outcomes(); }

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
  void mutex_unlock(MutexId m) override;
  bool add_program_callback(StreamId s, std::vector<MutexId> locks, TimeNs body_ns) override;

 private:
  enum EvKind : std::uint32_t { kHostResume, kStreamTry, kOpReads, kOpWrites, kOpEnd, kCallbackWake, kCallbackDone, kHoldEnd, kCallbackHandover };
  enum class Agent : std::uint8_t { Host, Callback };
  using HostWait = HostThread::Wait;

  // event loop (sim_device.cpp)
  void dispatch(const QueuedEvent& e);
  // host thread (sim_device_host.cpp)
  void host_run();
  void host_resume(std::uint64_t gen);
  void host_block(HostWait why, TimeNs deadline);
  void host_wake(TimeNs at);
  /// What waking the blocked host costs, by what it waits for (sync_wakeup_ns, signal_wakeup_ns).
  TimeNs host_wakeup_cost();
  bool host_wait_satisfied() const;
  void check_host_wait();  // wakes the host if what it waits for is now true
  void acquire_drain(StreamId s);
  void acquire_all_idle();
  // schedule holds and the step trace (sim_device_steps.cpp)
  /// Host op `index` is about to start: true if a hold makes the host wait for it.
  bool host_step_held(std::size_t index);
  void host_step_done();
  /// Wakes the agents of held steps whose hold ended (queued: kHoldEnd).
  void wake_held(const std::vector<StepRef>& steps);
  void hold_end(const StepRef& step);
  /// The run ran out of events with steps still held: their holds end (a long delay's end).
  bool end_held_steps();
  void touch(const StepObject& o) {
    if (steps_.active()) steps_.touch(agent(), o);
  }
  /// The host or a callback reads how far stream `s` got (a query, a synchronize).
  void touch_progress(StreamId s) {
    if (steps_.active() && valid_stream(s)) steps_.touch(agent(), StepObject{StepObject::Kind::Stream, false, std::uint64_t(s)});
  }
  // streams and the callback thread (sim_device_streams.cpp)
  StreamOp& enqueue(StreamId s, StreamOp::Kind kind);
  void advance(StreamId s);
  void kick(StreamId s, TimeNs at);
  void op_reads(StreamId s);
  void op_writes(StreamId s);
  void op_end(StreamId s);
  void complete_record(std::uint64_t rec);
  void callback_wake();
  /// Through a relay: hands the callback of stream s's head marker to the callback thread and lets
  /// the marker go (its stream and its pending-callback slot), callback_handover_ns after its reach.
  void callback_handover(StreamId s);
  /// Through a relay: stream s's head marker, reached at `reached`, leaves its stream and slot, and
  /// its callback goes to the callback thread, which wakes if it sleeps when the body would start
  /// (callback_after_op_ns after the reach behind device work, not before now) or else runs it after
  /// the one running now.
  void hand_to_relay(StreamId s, TimeNs reached);
  /// A sleeping callback thread's wake-up for `marker`, reached at `reached`, drawn:
  /// callback_after_op_ns behind device work, callback_latency_ns on an idle stream.
  TimeNs wake_after_reach(const StreamOp& marker, TimeNs reached);
  void callback_try();
  void callback_done();
  bool all_idle() const { return streams_.all_idle() && cb_.idle(); }
  // host mutexes (sim_device_mutex.cpp)
  /// The host's LockMutex step: true when it took `m`, false when it blocked on it.
  bool host_lock(MutexId m);
  /// Before the next callback's body: takes its mutexes in order; false while one is held.
  bool callback_take_mutexes();
  /// When a callback returned: releases what its body held, handing a mutex to a waiting host.
  void callback_release_mutexes();
  std::string mutex_name(MutexId m) const;
  std::string describe_host_mutex_wait() const;
  std::string describe_callback_thread() const;
  // diagnostics and findings (sim_device.cpp, sim_device_memory.cpp)
  std::string describe_blocked() const;
  /// The record of a lifetime finding the host or a callback ran into now.
  Finding lifetime_record(FindingKind kind, const BufferInfo& buf, AddrRange range, std::string detail);
  /// The record of a leak found at the end: an allocation never returned to a live pool.
  Finding unreturned_record(const BufferInfo& buf, TimeNs release_time) const;
  std::string buffer_name(BufferId b) const;

  // helpers
  AgentId agent() const { return current_ == Agent::Host ? kHostAgent : kCallbackAgent; }
  TimeNs& agent_now() { return current_ == Agent::Host ? host_.now : cb_.now; }
  /// A uniform double in [0, 1) from the chooser.
  double uniform();
  /// A draw from field `f`'s spread through the chooser; none when the run has no spread for it.
  std::optional<double> draw(const PlatformField& f);
  /// What one use of the cost `member` takes: the profile's value, or a draw from its spread;
  /// times the run's host pace when the host thread pays it.
  TimeNs cost(TimeNs PlatformProfile::*member);
  /// A device op's duration under the spread of spin_ns_per_cycle (the kernel's jitter).
  TimeNs op_duration(TimeNs nominal);
  /// When a device op's accesses happen, as offsets from when it takes its stream. The stream
  /// holds it for the gap after the op before it, the validation kernel's check pass over what it
  /// reads, its duration, and the fill pass over what it writes (platform.h). Its reads count at
  /// the end of the check pass (the last word read) unless op_check_sweep spreads them over it
  /// (read_sweep), its writes at the start of the fill pass (the first word written): a write of
  /// another stream anywhere between them and the reader's own last write clobbers some word the
  /// reader then sees, as on the GPU (results/hw/h200-pairs).
  /// Without those costs (every profile but a validation run's) reads are at the start and writes
  /// at the end, and nothing lies between one op's writes and the next op's reads.
  struct DevicePhases {
    TimeNs reads_at = 0, writes_at = 0, end = 0;
  };
  DevicePhases device_phases(const DeviceOp& op);
  /// With a check pass and op_check_sweep 1, when each part of a device op's reads is read, as
  /// offsets from when it takes its stream, into `out` (time order): the validation kernel reads each access in turn
  /// with a grid-stride loop, so its words go by in address order at op_check_ns_per_mib, and a
  /// word is read that long after the check reached its access. A write of another stream that
  /// lands on words the check has already passed is not seen (results/hw/h200-edge: the rule that
  /// counted every write before the pass's end called 5 of 39 trials corrupt that the H200 saw
  /// clean). Each access goes by in parts of kSweptReadBytes, each read at its middle.
  void read_sweep(const DeviceOp& op, std::vector<SimStream::SweptRead>& out) const;
  static constexpr std::uint64_t kSweptReadBytes = 1u << 20;
  /// Emits the running op's swept reads that are due and queues the next one's event.
  void op_swept_reads(StreamId s);
  void charge(TimeNs cost) {
    mem_.flush();  // host time passes: a deferred release state was visible
    charge_now(cost);
  }
  /// The agent's time moves on by `cost` (the host's busy time with it), nothing flushed.
  void charge_now(TimeNs cost) {
    agent_now() += cost;
    if (current_ == Agent::Host) host_.busy += cost;
  }
  bool valid_stream(StreamId s) const { return streams_.valid(s); }
  bool valid_event(EventId e) const { return streams_.valid_event(e); }

  // Makes one observer call, call(observer), on the race detector and then every other observer.
  // The detector is called through its own (final) type, so its calls, which queue a record
  // (race/call_queue.h), are inlined here: as virtual calls they were a few percent of a run.
  template <class Call>
  void emit(Call&& call) {
    if (races_) call(*races_);
    for (Observer* o : observers_) call(*o);
  }
  // Out of line (sim_device.cpp), as they were before the split: one copy of the detector's
  // inlined calls each, not one per call site.
  void release(AgentId a, std::uint64_t key);
  void acquire(AgentId a, std::uint64_t key);

  const Program& program_;
  SimConfig config_;
  Chooser& chooser_;
  // The run's host pace (PlatformSpread::host_pace), drawn once before anything else; 1 without one.
  double host_pace_ = 1;
  std::vector<Observer*> observers_;
  RaceDetector* races_;
  Interpreter* interp_ = nullptr;
  StepControl steps_;
  std::vector<StepRef> hold_wakes_;  // kHoldEnd's payload: arg indexes it

  EventQueue queue_;
  TimeNs now_ = 0;  // time of the event being processed
  std::uint64_t events_processed_ = 0;
  bool stopped_ = false;
  std::string stop_reason_;

  Agent current_ = Agent::Host;  // whose clock a Backend call charges: the host's or a callback's
  HostThread host_;
  StreamTable streams_;
  CallbackThread cb_;
  int sem_free_ = 0;  // compute semaphore units left
  MutexTable mutexes_;

  // pools + accounting (pool/device_pools.h, pool/memory_accounting.h: the same on the HIP backend)
  DevicePools pools_;
  MemoryAccounting mem_;  // flushed (charge, host_block, host_run) when the host does anything else
  std::vector<TimeNs> release_time_;
  TimeNs last_time_ = 0;

  // counters, findings, warnings
  std::uint64_t allocs_ = 0, frees_ = 0, callbacks_run_ = 0, ooms_ = 0, fallbacks_ = 0;
  std::int64_t callbacks_pending_ = 0;  // markers enqueued whose callback has not returned
  // When the driver's callback last handed one over after callback_handover_ns (-1: never): a
  // marker reached at that instant is handed over with it, the driver's thread being awake.
  TimeNs last_handover_ = -1;
  LifetimeFindings lifetime_{config_.max_findings};
  std::vector<std::string> warnings_;
  std::unordered_set<std::string> warned_;
};

}  // namespace allocsim
