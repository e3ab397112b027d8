// The sim backend (see engine/sim_device.h for the model). One event loop; every entity reacts
// to events in (time, seq) order, so a run is a pure function of its inputs and the Chooser.
#include "allocsim/engine/sim_device.h"

#include <algorithm>
#include <string>

#include "allocsim/engine/interpreter.h"
#include "allocsim/race/race_detector.h"

namespace allocsim {
namespace {
constexpr std::size_t kMaxWarnings = 200;
}  // namespace

SimDevice::SimDevice(const Program& program, SimConfig config, Chooser& chooser, std::vector<Observer*> observers,
                     RaceDetector* races)
    : program_(program),
      config_(std::move(config)),
      chooser_(chooser),
      observers_(std::move(observers)),
      races_(races),
      pools_(config_.device, /*bounded=*/false),
      mem_(pools_, [this](TimeNs t, const MemoryCounters& m) { emit([&](auto& o) { o.on_memory(t, m); }); }) {
  if (program.streams.empty()) {
    streams_.push_back(Stream{});
    streams_.back().name = "compute";
  }
  for (const StreamSpec& spec : program.streams) {
    streams_.push_back(Stream{});
    streams_.back().name = spec.name;
  }
  for (std::size_t s = 0; s < streams_.size(); ++s)
    emit([&](auto& o) { o.on_stream_created(StreamId(s), streams_[s].name); });
  records_.push_back(Record{kNoEvent, kNoStream, true});  // record 0: "never recorded", always complete
  sem_free_ = config_.semaphore;
  release_time_.assign(program.buffer_names.size(), -1);
}

SimDevice::~SimDevice() = default;

// ======================================================================= event loop

void SimDevice::run(Interpreter& interpreter) {
  interp_ = &interpreter;
  queue_.push(0, kHostResume, 0, host_gen_);
  while (!queue_.empty()) {
    if (config_.max_events && events_processed_ >= config_.max_events) {
      stopped_ = true;
      stop_reason_ = "stopped after " + std::to_string(events_processed_) + " events (max_events) at t=" +
                     std::to_string(now_) + " ns: " + describe_blocked();
      break;
    }
    const QueuedEvent e = queue_.pop();
    // A host timer superseded by an earlier wake-up (an OOM-wait deadline after a pool free woke
    // the host) is dropped unseen: it must not move the clock, and so not the makespan.
    if (e.kind == kHostResume && e.arg != host_gen_) continue;
    now_ = e.time;
    ++events_processed_;
    dispatch(e);
  }
  last_time_ = std::max({now_, host_now_, cb_now_});
  lifetime_.finish([this](const BufferInfo& buf, TimeNs released) { return unreturned_record(buf, released); });
  emit([&](auto& o) { o.on_end(last_time_); });
}

void SimDevice::dispatch(const QueuedEvent& e) {
  switch (e.kind) {
    case kHostResume: host_resume(e.arg); break;
    case kStreamTry: {
      Stream& st = streams_[std::size_t(e.target)];
      if (st.try_pending && e.time == st.try_at) st.try_pending = false;
      advance(e.target);
      break;
    }
    case kOpEnd: op_end(e.target); break;
    case kHandoff: handoff(e.target); break;
    case kCallbackDone: callback_done(); break;
  }
}

// ======================================================================= host thread

void SimDevice::host_run() {
  current_ = Agent::Host;
  for (;;) {
    if (host_now_ > now_) {
      // Another entity has something due before the host's clock: let it happen first.
      if (!queue_.empty() && queue_.top_time() <= host_now_) {
        mem_.flush();
        queue_.push(host_now_, kHostResume, 0, host_gen_);
        return;
      }
      now_ = host_now_;
    }
    if (plan_.empty()) {
      Plan plan;
      if (!interp_->next(plan)) {
        mem_.flush();
        interp_->finish();
        host_done_ = true;
        wait_ = HostWait::Done;
        return;
      }
      plan_.append(std::move(plan));
      continue;
    }
    const std::optional<Step> wait = plan_.next(*this);
    if (!wait) continue;
    const Step& step = *wait;
    switch (step.kind) {
      case Step::Kind::Do: break;  // already run by plan_.next
      case Step::Kind::WaitEvent: {
        if (!valid_event(step.event)) {
          warn("host synchronize on an invalid event ignored");
          break;
        }
        const std::uint64_t rec = events_[std::size_t(step.event)].latest_rec;
        if (records_[rec].done) {
          if (rec) acquire(kHostAgent, sync_key(SyncKind::Event, rec));
          break;
        }
        wait_rec_ = rec;
        host_block(HostWait::Event, kNever);
        return;
      }
      case Step::Kind::WaitStream:
        if (!valid_stream(step.stream)) {
          warn("host synchronize on an invalid stream ignored");
          break;
        }
        if (stream_idle(step.stream)) {
          acquire_drain(step.stream);
          break;
        }
        wait_stream_ = step.stream;
        host_block(HostWait::Stream, kNever);
        return;
      case Step::Kind::WaitAll:
        if (all_idle()) {
          acquire_all_idle();
          break;
        }
        host_block(HostWait::All, kNever);
        return;
      case Step::Kind::WaitPoolFree:
        if (step.deadline <= host_now_) break;
        wait_pool_ = step.pool;
        host_block(HostWait::PoolFree, step.deadline);
        return;
      case Step::Kind::AcquireSemaphore:
        if (sem_free_ > 0) {
          --sem_free_;
          acquire(kHostAgent, sync_key(SyncKind::Semaphore, 0));
          break;
        }
        host_block(HostWait::Semaphore, kNever);
        return;
    }
  }
}

void SimDevice::host_block(HostWait why, TimeNs deadline) {
  mem_.flush();
  wait_ = why;
  waking_ = false;
  blocked_since_ = host_now_;
  ++host_gen_;
  if (deadline != kNever) queue_.push(deadline, kHostResume, 0, host_gen_);
}

void SimDevice::host_resume(std::uint64_t gen) {
  if (gen != host_gen_) return;  // a superseded deadline timer
  if (wait_ == HostWait::Done) return;
  if (wait_ != HostWait::None) {
    const TimeNs from = blocked_since_;
    const char* why = "";
    switch (wait_) {
      case HostWait::Event:
        why = "event-sync";
        acquire(kHostAgent, sync_key(SyncKind::Event, wait_rec_));
        break;
      case HostWait::Stream:
        why = "stream-sync";
        acquire_drain(wait_stream_);
        break;
      case HostWait::All:
        why = "device-sync";
        acquire_all_idle();
        break;
      case HostWait::PoolFree: why = "oom-wait"; break;
      case HostWait::Semaphore:
        why = "semaphore";
        --sem_free_;
        acquire(kHostAgent, sync_key(SyncKind::Semaphore, 0));
        break;
      default: break;
    }
    wait_ = HostWait::None;
    waking_ = false;
    host_now_ = std::max(host_now_, now_);
    host_stall_ += host_now_ - from;
    emit([&](auto& o) { o.on_host_blocked(from, host_now_, why); });
  }
  host_now_ = std::max(host_now_, now_);
  host_run();
}

bool SimDevice::host_wait_satisfied() const {
  switch (wait_) {
    case HostWait::Event: return records_[wait_rec_].done;
    case HostWait::Stream: return stream_idle(wait_stream_);
    case HostWait::All: return all_idle();
    case HostWait::Semaphore: return sem_free_ > 0;
    default: return false;  // PoolFree is woken directly by pool_free
  }
}

void SimDevice::check_host_wait() {
  if (waking_ || wait_ == HostWait::None || wait_ == HostWait::Done || wait_ == HostWait::PoolFree) return;
  if (!host_wait_satisfied()) return;
  // Every wake-up of a blocked host by another agent costs sync_wakeup_ns: a stream/event/device
  // synchronize, a semaphore acquire and an OOM wait are all a blocked thread that another thread
  // signals (condition variable / driver wake), so they pay the same. An OOM wait that runs to its
  // deadline resumes at the deadline itself (a timed wait's timeout is what is modelled).
  const TimeNs at = (current_ == Agent::Callback ? cb_now_ : now_) + config_.platform.sync_wakeup_ns;
  host_wake(at);
}

void SimDevice::host_wake(TimeNs at) {
  waking_ = true;
  ++host_gen_;
  queue_.push(std::max(at, now_), kHostResume, 0, host_gen_);
}

void SimDevice::acquire_drain(StreamId s) {
  // The stream is idle, so its clock now is its clock after its last op: release it lazily here.
  release(stream_agent(s), sync_key(SyncKind::StreamDrain, std::uint64_t(s)));
  acquire(kHostAgent, sync_key(SyncKind::StreamDrain, std::uint64_t(s)));
}

void SimDevice::acquire_all_idle() {
  for (std::size_t s = 0; s < streams_.size(); ++s) acquire_drain(StreamId(s));
  release(kCallbackAgent, sync_key(SyncKind::AllIdle, 0));
  acquire(kHostAgent, sync_key(SyncKind::AllIdle, 0));
}

// ======================================================================= streams

bool SimDevice::stream_idle(StreamId s) const {
  const Stream& st = streams_[std::size_t(s)];
  return !st.busy && st.ops.empty();
}

bool SimDevice::all_idle() const {
  for (std::size_t s = 0; s < streams_.size(); ++s)
    if (!stream_idle(StreamId(s))) return false;
  return !cb_busy_ && callbacks_.empty();
}

void SimDevice::kick(StreamId s, TimeNs at) {
  Stream& st = streams_[std::size_t(s)];
  at = std::max(at, now_);
  if (st.try_pending && at >= st.try_at) return;
  st.try_pending = true;
  st.try_at = at;
  queue_.push(at, kStreamTry, s);
}

SimDevice::StreamOp& SimDevice::enqueue(StreamId s, StreamOp::Kind kind) {
  Stream& st = streams_[std::size_t(s)];
  const std::uint64_t seq = ++op_seq_;
  release(agent(), sync_key(SyncKind::EnqueuedOp, seq));
  st.ops.emplace_back();
  StreamOp& op = st.ops.back();
  op.kind = kind;
  op.op_seq = seq;
  op.ready = agent_now();
  if (!st.busy && st.waiting_rec == 0) kick(s, op.ready);
  return op;
}

void SimDevice::advance(StreamId s) {
  Stream& st = streams_[std::size_t(s)];
  const AgentId me = stream_agent(s);
  while (!st.busy && !st.ops.empty()) {
    StreamOp& op = st.ops.front();
    if (op.ready > now_) {
      kick(s, op.ready);
      return;
    }
    switch (op.kind) {
      case StreamOp::Kind::Device:
        acquire(me, sync_key(SyncKind::EnqueuedOp, op.op_seq));
        for (const DeviceAccess& a : op.dev.reads)
          emit([&](auto& o) { o.on_access(me, op.op_seq, a.alloc, a.range, false, now_); });
        st.busy = true;
        st.op_start = now_;
        queue_.push(now_ + std::max<TimeNs>(op.dev.duration, 0), kOpEnd, s);
        return;
      case StreamOp::Kind::Record: {
        acquire(me, sync_key(SyncKind::EnqueuedOp, op.op_seq));
        const std::uint64_t rec = op.rec;
        release(me, sync_key(SyncKind::Event, rec));
        const DeviceOpSpan span{op.op_seq, s, DeviceOpKind::Marker, "event-record", now_, now_};
        emit([&](auto& o) { o.on_device_op(span); });
        st.ops.pop_front();
        complete_record(rec);
        continue;
      }
      case StreamOp::Kind::Wait: {
        if (!records_[op.rec].done) {
          if (st.waiting_rec != op.rec) st.wait_since = now_;
          st.waiting_rec = op.rec;
          return;
        }
        const TimeNs since = st.waiting_rec == op.rec ? st.wait_since : now_;
        st.waiting_rec = 0;
        acquire(me, sync_key(SyncKind::EnqueuedOp, op.op_seq));
        acquire(me, sync_key(SyncKind::Event, op.rec));
        const DeviceOpSpan span{op.op_seq, s, DeviceOpKind::Marker, "event-wait", since, now_};
        emit([&](auto& o) { o.on_device_op(span); });
        st.ops.pop_front();
        continue;
      }
      case StreamOp::Kind::Marker:
        acquire(me, sync_key(SyncKind::EnqueuedOp, op.op_seq));
        st.busy = true;
        st.op_start = now_;
        queue_.push(now_ + config_.platform.callback_latency_ns, kHandoff, s);
        return;
    }
  }
  if (!st.busy && st.ops.empty()) check_host_wait();
}

void SimDevice::op_end(StreamId s) {
  Stream& st = streams_[std::size_t(s)];
  StreamOp& op = st.ops.front();
  const AgentId me = stream_agent(s);
  for (const DeviceAccess& a : op.dev.writes)
    emit([&](auto& o) { o.on_access(me, op.op_seq, a.alloc, a.range, true, now_); });
  const DeviceOpSpan span{op.op_seq, s, op.dev.kind, op.dev.label, st.op_start, now_};
  emit([&](auto& o) { o.on_device_op(span); });
  st.ops.pop_front();
  st.busy = false;
  advance(s);
}

void SimDevice::handoff(StreamId s) {
  Stream& st = streams_[std::size_t(s)];
  StreamOp& op = st.ops.front();
  release(stream_agent(s), sync_key(SyncKind::CallbackHandoff, op.rec));
  const DeviceOpSpan span{op.op_seq, s, DeviceOpKind::Marker, "callback-marker", st.op_start, now_};
  emit([&](auto& o) { o.on_device_op(span); });
  callbacks_.push_back(Callback{op.rec, std::move(op.fn), std::move(op.what)});
  st.ops.pop_front();
  st.busy = false;
  callback_try();
  advance(s);
}

void SimDevice::complete_record(std::uint64_t rec) {
  records_[rec].done = true;
  for (std::size_t t = 0; t < streams_.size(); ++t) {
    if (streams_[t].waiting_rec != rec) continue;
    kick(StreamId(t), now_);
  }
  check_host_wait();
}

// ======================================================================= callback thread

void SimDevice::callback_try() {
  if (cb_busy_ || callbacks_.empty()) return;
  Callback cb = std::move(callbacks_.front());
  callbacks_.pop_front();
  cb_busy_ = true;
  cb_start_ = now_;
  cb_now_ = now_;
  acquire(kCallbackAgent, sync_key(SyncKind::CallbackHandoff, cb.id));
  current_ = Agent::Callback;
  if (cb.fn) cb.fn(*this);
  current_ = Agent::Host;
  cb_now_ += config_.platform.callback_run_ns;
  cb_running_ = std::move(cb.what);
  ++callbacks_run_;
  queue_.push(cb_now_, kCallbackDone, 0);
}

void SimDevice::callback_done() {
  cb_busy_ = false;
  emit([&](auto& o) { o.on_callback_run(cb_start_, now_, cb_running_); });
  callback_try();
  if (!cb_busy_) check_host_wait();
}

// ======================================================================= Backend: streams, events

TimeNs SimDevice::now() const { return current_ == Agent::Host ? host_now_ : cb_now_; }

void SimDevice::warn(std::string message) {
  if (warnings_.size() >= kMaxWarnings) return;
  if (warned_.insert(message).second) warnings_.push_back(std::move(message));
}

StreamId SimDevice::callback_stream(StreamId source) {
  if (!valid_stream(source)) {
    warn("callback_stream of an invalid stream: using compute's");
    source = 0;
  }
  if (streams_[std::size_t(source)].callback_stream != kNoStream) return streams_[std::size_t(source)].callback_stream;
  const StreamId id = StreamId(streams_.size());
  Stream st;
  st.name = "callback(" + streams_[std::size_t(source)].name + ")";
  streams_.push_back(std::move(st));
  streams_[std::size_t(source)].callback_stream = id;
  emit([&](auto& o) { o.on_stream_created(id, streams_.back().name); });
  return id;
}

EventId SimDevice::create_event() {
  EventId e;
  if (!free_events_.empty()) {
    e = free_events_.back();
    free_events_.pop_back();
  } else {
    e = EventId(events_.size());
    events_.emplace_back();
  }
  EventSlot& slot = events_[std::size_t(e)];
  slot.alive = true;
  slot.latest_rec = 0;
  slot.name.clear();
  return e;
}

void SimDevice::destroy_event(EventId e) {
  if (!valid_event(e)) return warn("destroy of an invalid event ignored");
  events_[std::size_t(e)].alive = false;
  free_events_.push_back(e);
}

void SimDevice::label_event(EventId e, std::string_view name) {
  if (valid_event(e)) events_[std::size_t(e)].name = name;
}

void SimDevice::record_event(EventId e, StreamId s) {
  charge(config_.platform.event_record_ns);
  if (!valid_event(e) || !valid_stream(s)) return warn("record of an invalid event or on an invalid stream ignored");
  const std::uint64_t rec = records_.size();
  records_.push_back(Record{e, s, false});
  events_[std::size_t(e)].latest_rec = rec;
  enqueue(s, StreamOp::Kind::Record).rec = rec;
}

void SimDevice::stream_wait(StreamId s, EventId e) {
  charge(config_.platform.stream_wait_ns);
  if (!valid_event(e) || !valid_stream(s)) return warn("stream wait on an invalid event or stream ignored");
  const std::uint64_t rec = events_[std::size_t(e)].latest_rec;
  if (rec == 0) return;  // never recorded: a no-op (CUDA semantics)
  enqueue(s, StreamOp::Kind::Wait).rec = rec;
}

bool SimDevice::query_event(EventId e) {
  charge(config_.platform.event_query_ns);
  if (!valid_event(e)) {
    warn("query of an invalid event reports done");
    return true;
  }
  const std::uint64_t rec = events_[std::size_t(e)].latest_rec;
  if (rec == 0) return true;
  if (!records_[rec].done) return false;
  acquire(agent(), sync_key(SyncKind::Event, rec));
  return true;
}

bool SimDevice::add_host_callback(StreamId s, HostFn fn, std::string_view what) {
  charge(config_.platform.callback_enqueue_ns);
  if (!valid_stream(s)) {
    warn("host callback on an invalid stream refused");
    return false;
  }
  const double p = config_.params.get("callback_enqueue_failure", 0);
  if (p > 0 && chooser_.chance(p)) return false;
  StreamOp& op = enqueue(s, StreamOp::Kind::Marker);
  op.rec = ++cb_seq_;
  op.fn = std::move(fn);
  op.what = what;
  return true;
}

// ======================================================================= pools + accounting

bool SimDevice::pool_alive(PoolId p) const { return pools_.alive(p); }

std::optional<Chunk> SimDevice::pool_allocate(PoolId p, std::uint64_t bytes) {
  charge(config_.platform.host_alloc_ns);
  if (!DevicePool::known(p)) {
    warn("allocation from an unknown pool fails");
    return std::nullopt;
  }
  DevicePool* dp = pools_.get(p);
  if (!dp) {
    warn("allocation from a destroyed pool fails");
    return std::nullopt;
  }
  const std::optional<Addr> a = dp->bfc().allocate(bytes);
  mem_.sample(agent_now());  // on failure too: garbage collection may have shrunk the pool
  if (!a) {
    if (dp->bound_refusals())
      warn("pool " + std::to_string(p) + " ran out of address space: placement left the oracle's");
    return std::nullopt;
  }
  return Chunk{p, *a, dp->bfc().chunk_size(*a)};
}

void SimDevice::pool_free(const Chunk& chunk, BufferId buffer) {
  // The free takes effect when called; its host cost (host_free_ns) is charged after it, so a
  // release followed at once by its free (immediate) moves the bytes live -> free atomically.
  struct ChargeAfter {
    SimDevice& d;
    ~ChargeAfter() { d.agent_now() += d.config_.platform.host_free_ns; }
  } charge_after{*this};
  const TimeNs t = agent_now();
  const PoolId p = chunk.pool;
  if (!DevicePool::known(p)) return warn("free into an unknown pool ignored");
  BufferInfo info;
  info.id = buffer;
  info.chunk = chunk;
  info.requested_bytes = mem_.requested_bytes(chunk).value_or(0);
  if (pools_.destroyed(p)) {
    mem_.on_pool_free(chunk);  // (not returned to a live pool: a leak too, counted at the end)
    const std::string who = current_ == Agent::Callback ? "a callback" : "the host";
    lifetime_.report(lifetime_record(FindingKind::CallbackAfterPoolDestroyed, info,
                                     AddrRange{chunk.addr, chunk.bytes},
                                     who + " freed buffer '" + buffer_name(buffer) + "' into pool " +
                                         std::to_string(p) + " after shutdown destroyed it"));
    mem_.sample(t);
    return;
  }
  DevicePool* dp = pools_.find(p);
  if (!dp || !dp->bfc().is_live(chunk.addr)) {
    lifetime_.report(lifetime_record(FindingKind::DoubleFree, info, AddrRange{chunk.addr, chunk.bytes},
                                     "pool free of a chunk that is not allocated (buffer '" +
                                         buffer_name(buffer) + "' freed twice)"));
    return;
  }
  dp->bfc().deallocate(chunk.addr);
  ++frees_;
  mem_.on_pool_free(chunk);
  lifetime_.returned(chunk);
  emit([&](auto& o) { o.on_pool_free(agent(), chunk, buffer, t); });
  mem_.sample(t);
  if (wait_ == HostWait::PoolFree && wait_pool_ == p && !waking_) host_wake(t + config_.platform.sync_wakeup_ns);
}

void SimDevice::destroy_pool(PoolId p) {
  if (!pools_.destroy(p)) return;
  const TimeNs t = agent_now();
  emit([&](auto& o) { o.on_pool_destroyed(p, t); });
  mem_.sample(t);
}

// ======================================================================= Device

void SimDevice::launch(StreamId s, DeviceOp op) {
  charge(config_.platform.launch_overhead_ns);
  if (!valid_stream(s)) return warn("launch on an invalid stream ignored");
  enqueue(s, StreamOp::Kind::Device).dev = std::move(op);
}

void SimDevice::host_delay(TimeNs d) { charge(std::max<TimeNs>(d, 0)); }

void SimDevice::semaphore_release() {
  release(agent(), sync_key(SyncKind::Semaphore, 0));
  if (sem_free_ >= config_.semaphore) warn("compute semaphore released more often than acquired");
  ++sem_free_;
  check_host_wait();
}

void SimDevice::note_alloc(const BufferInfo& buf) {
  ++allocs_;
  mem_.on_alloc(buf);
  lifetime_.allocated(buf);
  const TimeNs t = agent_now();
  emit([&](auto& o) { o.on_alloc(agent(), buf, t); });
  mem_.sample(t);
}

void SimDevice::note_host_release(const BufferInfo& buf) {
  const TimeNs t = agent_now();
  if (buf.id >= 0 && std::size_t(buf.id) < release_time_.size()) release_time_[std::size_t(buf.id)] = t;
  lifetime_.released(buf.chunk, t);
  emit([&](auto& o) { o.on_host_release(buf, t); });
  // Sampled later: any other call, a block, a yield or the end of the program flushes it at t.
  mem_.on_host_release(buf, t);
}

void SimDevice::note_oom(StreamId s, std::uint64_t bytes, bool scratch) {
  (void)bytes;
  ++ooms_;
  warn(std::string("OOM: ") + (scratch ? "scratch " : "") + "allocation on stream '" +
       (valid_stream(s) ? streams_[std::size_t(s)].name : std::string("?")) + "' failed");
}

void SimDevice::note_lifetime_violation(FindingKind kind, const BufferInfo& buf, std::string detail) {
  Finding f = lifetime_record(kind, buf, AddrRange{buf.chunk.addr, buf.chunk.bytes}, std::move(detail));
  // A leak is counted once per allocation instance: this one, held by the host at the end, is not
  // counted again among those never returned to the pool (LifetimeFindings::finish).
  if (kind == FindingKind::Leak) return lifetime_.report_leak(std::move(f), buf.chunk);
  lifetime_.report(std::move(f));
}

Finding SimDevice::lifetime_record(FindingKind kind, const BufferInfo& buf, AddrRange range,
                                   std::string detail) {
  Finding f;
  f.kind = kind;
  f.range = range;
  f.first.alloc = buf.id;
  f.first.alloc_bytes = buf.requested_bytes;
  f.first.alloc_stream = valid_stream(buf.alloc_stream) ? streams_[std::size_t(buf.alloc_stream)].name : "";
  f.first.alloc_time = buf.alloc_time;
  if (buf.id >= 0 && std::size_t(buf.id) < release_time_.size())
    f.first.release_time = release_time_[std::size_t(buf.id)];
  f.first.op = "host";
  f.first.stream = current_ == Agent::Host ? "host" : "callback-thread";
  f.first.start = f.first.end = agent_now();
  f.action_between = std::move(detail);
  return f;
}

Finding SimDevice::unreturned_record(const BufferInfo& buf, TimeNs release_time) const {
  Finding f;
  f.kind = FindingKind::Leak;
  f.range = AddrRange{buf.chunk.addr, buf.chunk.bytes};
  f.first.alloc = buf.id;
  f.first.alloc_bytes = buf.requested_bytes ? buf.requested_bytes : buf.chunk.bytes;
  f.first.alloc_stream = valid_stream(buf.alloc_stream) ? streams_[std::size_t(buf.alloc_stream)].name : "?";
  f.first.alloc_time = buf.alloc_time;
  f.first.release_time = release_time;
  f.action_between = "never returned to the pool by the end of the run";
  return f;
}

std::string SimDevice::buffer_name(BufferId b) const {
  if (b >= 0 && std::size_t(b) < program_.buffer_names.size()) return program_.buffer_names[std::size_t(b)];
  return "#" + std::to_string(b);
}

void SimDevice::release(AgentId a, std::uint64_t key) {
  emit([&](auto& o) { o.on_release_sync(a, key); });
}

void SimDevice::acquire(AgentId a, std::uint64_t key) {
  emit([&](auto& o) { o.on_acquire_sync(a, key); });
}

// ======================================================================= results, diagnostics

std::string SimDevice::describe_record(std::uint64_t rec) const {
  const Record& r = records_[rec];
  std::string name = "e" + std::to_string(r.event);
  if (r.event >= 0 && std::size_t(r.event) < events_.size() && !events_[std::size_t(r.event)].name.empty())
    name = events_[std::size_t(r.event)].name;
  std::string s = "'" + name + "' (record #" + std::to_string(rec);
  if (valid_stream(r.stream)) {
    s += " on stream '" + streams_[std::size_t(r.stream)].name + "', not reached";
    if (streams_[std::size_t(r.stream)].waiting_rec) s += ": that stream is itself blocked";
  }
  return s + ")";
}

std::string SimDevice::describe_blocked() const {
  std::vector<std::string> parts;
  std::string host;
  switch (wait_) {
    case HostWait::Semaphore:
      host = "host: waiting for compute semaphore (" + std::to_string(std::max(sem_free_, 0)) + "/" +
             std::to_string(config_.semaphore) + " free)";
      break;
    case HostWait::Event: host = "host: waiting for event " + describe_record(wait_rec_); break;
    case HostWait::Stream: host = "host: waiting for stream '" + streams_[std::size_t(wait_stream_)].name + "' to drain"; break;
    case HostWait::All: host = "host: waiting for all streams and the callback thread to go idle"; break;
    case HostWait::PoolFree: host = "host: waiting for a chunk to return to pool " + std::to_string(wait_pool_); break;
    case HostWait::None: host = "host: runnable"; break;
    case HostWait::Done: break;
  }
  if (!host.empty()) {
    if (interp_ && interp_->current_op()) {
      host += " at op #" + std::to_string(interp_->position());
      if (interp_->current_op()->source_line) host += " (line " + std::to_string(interp_->current_op()->source_line) + ")";
    }
    parts.push_back(host);
  }
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    const Stream& st = streams_[s];
    if (st.waiting_rec)
      parts.push_back("stream '" + st.name + "': waiting for event " + describe_record(st.waiting_rec) + ", " +
                      std::to_string(st.ops.size()) + " op(s) queued");
    else if (st.busy || !st.ops.empty())
      parts.push_back("stream '" + st.name + "': " + std::to_string(st.ops.size()) + " op(s) queued");
  }
  if (cb_busy_ || !callbacks_.empty())
    parts.push_back("callback thread: " + std::to_string(callbacks_.size() + (cb_busy_ ? 1 : 0)) + " callback(s) pending");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

RunMeasures SimDevice::measures() const {
  RunMeasures r;
  const bool finished = host_done_ && all_idle();
  r.completed = !stopped_ && finished;
  if (stopped_)
    r.error = stop_reason_;
  else if (!finished)
    r.error = "deadlock: nothing can make progress at t=" + std::to_string(now_) + " ns: " + describe_blocked();
  mem_.fill(r);
  r.makespan_ns = last_time_;
  r.host_stall_ns = host_stall_;
  r.allocs = allocs_, r.frees = frees_, r.callbacks = callbacks_run_, r.ooms = ooms_, r.fallbacks = fallbacks_;
  r.warnings = warnings_;  // distinct already (warn)
  return r;
}

}  // namespace allocsim
