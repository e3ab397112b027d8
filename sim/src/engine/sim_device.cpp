// The sim backend's façade (see sim_device.h for the model): construction, the event loop, the
// Backend/Device calls on streams, events and callbacks, and the run's measures. One event loop;
// every entity reacts to events in (time, seq) order.
#include "sim_device.h"

#include <algorithm>
#include <string>

#include "allocsim/engine/interpreter.h"

namespace allocsim {
namespace {
constexpr std::size_t kMaxWarnings = 200;
}  // namespace

SimDevice::SimDevice(const Program& program, SimConfig config, Chooser& chooser,
                     std::vector<Observer*> observers, RaceDetector* races)
    : program_(program),
      config_(std::move(config)),
      chooser_(chooser),
      observers_(std::move(observers)),
      races_(races),
      steps_(config_.holds, config_.trace),
      pools_(config_.device, /*bounded=*/false),
      mem_(pools_, [this](TimeNs t, const MemoryCounters& m) { emit([&](auto& o) { o.on_memory(t, m); }); }) {
  if (program.streams.empty()) streams_.add("compute");
  for (const StreamSpec& spec : program.streams) streams_.add(spec.name);
  for (std::size_t s = 0; s < streams_.size(); ++s)
    emit([&](auto& o) { o.on_stream_created(StreamId(s), streams_[StreamId(s)].name); });
  sem_free_ = config_.semaphore;
  release_time_.assign(program.buffer_names.size(), -1);
  // Drawn only when there is a pace, so every run without one draws as it did before.
  if (config_.spread && !config_.spread->host_pace.empty()) host_pace_ = PlatformSpread::at(config_.spread->host_pace, uniform());
  if (config_.spread) host_pace_ *= config_.spread->host_pace_level;
}

SimDevice::~SimDevice() = default;

void SimDevice::release(AgentId a, std::uint64_t key) {
  emit([&](auto& o) { o.on_release_sync(a, key); });
  if (steps_.active()) steps_.release(a, key);
}

void SimDevice::acquire(AgentId a, std::uint64_t key) {
  emit([&](auto& o) { o.on_acquire_sync(a, key); });
  if (steps_.active()) steps_.acquire(a, key);
}

// ======================================================================= event loop

void SimDevice::run(Interpreter& interpreter) {
  interp_ = &interpreter;
  queue_.push(0, kHostResume, 0, host_.gen);
  // A schedule hold still waiting when nothing else can happen ends there (docs/explore.md).
  do {
    while (!queue_.empty()) {
      if (config_.max_events && events_processed_ >= config_.max_events) {
        stopped_ = true;
        stop_reason_ = "stopped after " + std::to_string(events_processed_) +
                       " events (max_events) at t=" + std::to_string(now_) + " ns: " + describe_blocked();
        break;
      }
      const QueuedEvent e = queue_.pop();
      // A host timer superseded by an earlier wake-up (an OOM-wait deadline after a pool free woke
      // the host) is dropped unseen: it must not move the clock, and so not the makespan.
      if (e.kind == kHostResume && e.arg != host_.gen) continue;
      now_ = e.time;
      ++events_processed_;
      dispatch(e);
    }
  } while (!stopped_ && end_held_steps());
  last_time_ = std::max({now_, host_.now, cb_.now});
  lifetime_.finish(
      [this](const BufferInfo& buf, TimeNs released) { return unreturned_record(buf, released); });
  emit([&](auto& o) { o.on_end(last_time_); });
}

void SimDevice::dispatch(const QueuedEvent& e) {
  switch (e.kind) {
    case kHostResume:
      host_resume(e.arg);
      break;
    case kStreamTry: {
      SimStream& st = streams_[e.target];
      if (st.try_pending && e.time == st.try_at) st.try_pending = false;
      advance(e.target);
      break;
    }
    case kOpReads:
      if (streams_[e.target].swept_reads.empty()) op_reads(e.target);
      else op_swept_reads(e.target);
      break;
    case kOpWrites:
      op_writes(e.target);
      break;
    case kOpEnd:
      op_end(e.target);
      break;
    case kCallbackWake:
      callback_wake();
      break;
    case kCallbackDone:
      callback_done();
      break;
    case kHoldEnd:
      hold_end(hold_wakes_[e.arg]);
      break;
    case kCallbackHandover:
      callback_handover(e.target);
      break;
  }
}

// ======================================================================= Backend: streams, events

double SimDevice::uniform() {
  constexpr std::uint64_t kSteps = std::uint64_t(1) << 53;  // a uniform double in [0, 1)
  return double(chooser_.pick(kSteps)) / double(kSteps);
}

std::optional<double> SimDevice::draw(const PlatformField& f) {
  if (!config_.spread) return std::nullopt;
  const std::size_t i = platform_field_index(f);
  const std::vector<double>& q = config_.spread->quantiles[i];
  if (q.empty()) return std::nullopt;
  return PlatformSpread::at(q, config_.spread->tails[i], uniform());
}

TimeNs SimDevice::cost(TimeNs PlatformProfile::*member) {
  const TimeNs fixed = config_.platform.*member;
  if (!config_.spread) return fixed;
  for (const PlatformField& f : kPlatformFields)
    if (f.ns == member) {
      const std::optional<double> v = draw(f);
      const double pace = f.payer == CostPayer::host ? host_pace_ : 1;
      if (!v && pace == 1) return fixed;  // exactly the profile's value, as before paces existed
      return TimeNs(std::llround((v ? *v : double(fixed)) * pace));
    }
  return fixed;
}

TimeNs SimDevice::op_duration(TimeNs nominal) {
  if (!config_.spread || nominal <= 0) return std::max<TimeNs>(nominal, 0);
  const double rate = config_.platform.spin_ns_per_cycle;
  const std::optional<double> v = rate > 0 ? draw(*find_platform_field("spin_ns_per_cycle")) : std::nullopt;
  return v ? TimeNs(std::llround(double(nominal) * *v / rate)) : nominal;
}

SimDevice::DevicePhases SimDevice::device_phases(const DeviceOp& op) {
  const PlatformProfile& p = config_.platform;
  const TimeNs run = op_duration(op.duration);
  auto pass = [](const std::vector<DeviceAccess>& v, TimeNs ns_per_mib) {
    if (ns_per_mib <= 0) return TimeNs(0);
    double bytes = 0;
    for (const DeviceAccess& a : v) bytes += double(a.range.bytes);
    return TimeNs(std::llround(bytes / double(1 << 20) * double(ns_per_mib)));
  };
  DevicePhases ph;
  ph.reads_at = p.device_op_gap_ns + pass(op.reads, p.op_check_ns_per_mib);
  ph.writes_at = ph.reads_at + run;
  ph.end = ph.writes_at + pass(op.writes, p.op_fill_ns_per_mib);
  return ph;
}

void SimDevice::read_sweep(const DeviceOp& op, std::vector<SimStream::SweptRead>& out) const {
  const PlatformProfile& p = config_.platform;
  out.clear();
  if (p.op_check_ns_per_mib <= 0 || p.op_check_sweep == 0) return;
  const double ns_per_byte = double(p.op_check_ns_per_mib) / double(1 << 20);
  double reached = double(p.device_op_gap_ns);  // when the check reaches the next access
  for (const DeviceAccess& a : op.reads) {
    const std::uint64_t parts = std::max<std::uint64_t>(1, (a.range.bytes + kSweptReadBytes - 1) / kSweptReadBytes);
    for (std::uint64_t i = 0; i < parts; ++i) {
      const std::uint64_t begin = a.range.bytes * i / parts, end = a.range.bytes * (i + 1) / parts;
      const double middle = reached + (double(begin) + double(end)) / 2 * ns_per_byte;
      out.push_back({TimeNs(std::llround(middle)), a.alloc, AddrRange{a.range.begin + begin, end - begin}});
    }
    reached += double(a.range.bytes) * ns_per_byte;
  }
}

TimeNs SimDevice::now() const { return current_ == Agent::Host ? host_.now : cb_.now; }

void SimDevice::warn(std::string message) {
  if (warnings_.size() >= kMaxWarnings) return;
  if (warned_.insert(message).second) warnings_.push_back(std::move(message));
}

StreamId SimDevice::callback_stream(StreamId source) {
  if (!valid_stream(source)) {
    warn("callback_stream of an invalid stream: using compute's");
    source = 0;
  }
  if (streams_[source].callback_stream != kNoStream) return streams_[source].callback_stream;
  const StreamId id = streams_.add("callback(" + streams_[source].name + ")");
  streams_[source].callback_stream = id;
  emit([&](auto& o) { o.on_stream_created(id, streams_[id].name); });
  return id;
}

EventId SimDevice::create_event() {
  charge(cost(&PlatformProfile::event_create_ns));
  return streams_.create_event();
}

void SimDevice::destroy_event(EventId e) {
  charge(cost(&PlatformProfile::event_destroy_ns));
  if (!valid_event(e)) return warn("destroy of an invalid event ignored");
  streams_.destroy_event(e);
}

void SimDevice::label_event(EventId e, std::string_view name) { streams_.label_event(e, name); }

void SimDevice::record_event(EventId e, StreamId s) {
  charge(cost(&PlatformProfile::event_record_ns));
  if (!valid_event(e) || !valid_stream(s))
    return warn("record of an invalid event or on an invalid stream ignored");
  const std::uint64_t rec = streams_.new_record(e, s);
  enqueue(s, StreamOp::Kind::Record).rec = rec;
}

void SimDevice::stream_wait(StreamId s, EventId e) {
  charge(cost(&PlatformProfile::stream_wait_ns));
  if (!valid_event(e) || !valid_stream(s)) return warn("stream wait on an invalid event or stream ignored");
  const std::uint64_t rec = streams_.latest(e);
  if (rec == 0) return;  // never recorded: a no-op (CUDA semantics)
  enqueue(s, StreamOp::Kind::Wait).rec = rec;
}

bool SimDevice::query_event(EventId e) {
  charge(cost(&PlatformProfile::event_query_ns));
  if (!valid_event(e)) {
    warn("query of an invalid event reports done");
    return true;
  }
  const std::uint64_t rec = streams_.latest(e);
  if (rec == 0) return true;
  touch_progress(streams_.record_stream(rec));
  if (!streams_.done(rec)) return false;
  acquire(agent(), sync_key(SyncKind::Event, rec));
  return true;
}

bool SimDevice::add_host_callback(StreamId s, HostFn fn, std::string_view what) {
  charge(cost(&PlatformProfile::callback_enqueue_ns));
  if (!valid_stream(s)) {
    warn("host callback on an invalid stream refused");
    return false;
  }
  const double p = callback_enqueue_failure(config_.params);
  if (p > 0 && chooser_.chance(p)) return false;
  StreamOp& op = enqueue(s, StreamOp::Kind::Marker);
  ++callbacks_pending_;
  op.rec = ++cb_.next_id;
  op.fn = std::move(fn);
  op.what = what;
  return true;
}

// ======================================================================= Device

void SimDevice::launch(StreamId s, DeviceOp op) {
  charge(cost(&PlatformProfile::launch_overhead_ns));
  if (!valid_stream(s)) return warn("launch on an invalid stream ignored");
  // The driver holds only so many host callbacks (pending_callback_limit); a launch past them
  // waits in the driver until one returns (results/hw/h200-deferred). Modelled as the host
  // blocking right after this Do step: the op is queued at once, which changes nothing while
  // its stream is still busy with the work ahead of those callbacks.
  const std::int64_t limit = config_.platform.pending_callback_limit;
  if (current_ == Agent::Host && limit > 0 && callbacks_pending_ >= limit) host_.slot_wait = true;
  StreamOp& queued = enqueue(s, StreamOp::Kind::Device);
  queued.dev = std::move(op);
  queued.step = streams_[s].device_ops++;
  // A host that slept on a condition variable returns from its next launch later: on the H200 the
  // gap from the first launch after a semaphore wait to the next launch is ~10 us longer than the
  // same gap without the wait (results/hw/post-wake), so it is charged after the op is queued.
  // Skipped at 0, so older profiles draw nothing more.
  if (current_ == Agent::Host && host_.slept) {
    host_.slept = false;
    if (config_.platform.wake_first_launch_ns > 0) charge(cost(&PlatformProfile::wake_first_launch_ns));
  }
}

void SimDevice::host_delay(TimeNs d) { charge(std::max<TimeNs>(d, 0)); }

void SimDevice::semaphore_release() {
  touch(StepObject{StepObject::Kind::Semaphore, true, 0});
  release(agent(), sync_key(SyncKind::Semaphore, 0));
  if (sem_free_ >= config_.semaphore) warn("compute semaphore released more often than acquired");
  ++sem_free_;
  check_host_wait();
}

void SimDevice::note_oom(StreamId s, std::uint64_t bytes, bool scratch) {
  (void)bytes;
  ++ooms_;
  warn(std::string("OOM: ") + (scratch ? "scratch " : "") + "allocation on stream '" +
       (valid_stream(s) ? streams_[s].name : std::string("?")) + "' failed");
}

// ======================================================================= results, diagnostics

std::string SimDevice::describe_blocked() const {
  std::vector<std::string> parts;
  std::string host;
  switch (host_.wait) {
    case HostWait::Semaphore:
      host = "host: waiting for compute semaphore (" + std::to_string(std::max(sem_free_, 0)) + "/" +
             std::to_string(config_.semaphore) + " free)";
      break;
    case HostWait::Event:
      host = "host: waiting for event " + streams_.describe_record(host_.wait_rec);
      break;
    case HostWait::Stream:
      host = "host: waiting for stream '" + streams_[host_.wait_stream].name + "' to drain";
      break;
    case HostWait::All:
      host = "host: waiting for all streams and the callback thread to go idle";
      break;
    case HostWait::PoolFree:
      host = "host: waiting for a chunk to return to pool " + std::to_string(host_.wait_pool);
      break;
    case HostWait::Hold:
      host = "host: held by the schedule";
      break;
    case HostWait::Mutex:
      host = describe_host_mutex_wait();
      break;
    case HostWait::CallbackSlot:
      host = "host: in a launch, waiting for one of " + std::to_string(callbacks_pending_) +
             " pending host callbacks to return (pending_callback_limit)";
      break;
    case HostWait::None:
      host = "host: runnable";
      break;
    case HostWait::Done:
      break;
  }
  if (!host.empty()) {
    if (interp_ && interp_->current_op()) {
      host += " at op #" + std::to_string(interp_->position());
      if (interp_->current_op()->source_line)
        host += " (line " + std::to_string(interp_->current_op()->source_line) + ")";
    }
    parts.push_back(host);
  }
  streams_.describe_blocked(parts);
  if (!cb_.idle()) parts.push_back(describe_callback_thread());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

RunMeasures SimDevice::measures() const {
  RunMeasures r;
  const bool finished = host_.done && all_idle();
  r.completed = !stopped_ && finished;
  if (stopped_)
    r.error = stop_reason_;
  else if (!finished)
    r.error =
        "deadlock: nothing can make progress at t=" + std::to_string(now_) + " ns: " + describe_blocked();
  mem_.fill(r);
  r.makespan_ns = last_time_;
  r.host_stall_ns = host_.stall;
  r.host_busy_ns = host_.busy;
  using Cause = HostThread::Cause;
  r.host_blocked_policy_ns = host_.blocked[std::size_t(Cause::Policy)];
  r.host_blocked_semaphore_ns = host_.blocked[std::size_t(Cause::Semaphore)];
  r.host_blocked_oom_ns = host_.blocked[std::size_t(Cause::Oom)];
  r.host_blocked_sync_ns = host_.blocked[std::size_t(Cause::Sync)];
  r.device_idle_ns = streams_.device_idle(last_time_);
  r.host_release_ns = host_.release_ns;
  r.releases = host_.releases;
  r.allocs = allocs_, r.frees = frees_, r.callbacks = callbacks_run_, r.ooms = ooms_,
  r.fallbacks = fallbacks_;
  r.warnings = warnings_;  // distinct already (warn)
  return r;
}

}  // namespace allocsim
