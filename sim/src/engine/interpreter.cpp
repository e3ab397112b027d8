// Host-program interpreter: HostOp -> Plan (see engine/interpreter.h for the contract).
// Every check of a buffer's state happens inside a Do step, i.e. when the host thread executes
// it, not when the plan is built: the plan of one op may contain policy steps that run first.
#include "allocsim/engine/interpreter.h"

#include <string>
#include <string_view>

namespace allocsim {
namespace {

// Messages are built by appending to one string, never by `"literal" + std::string`: at -O3
// g++ 12 inlines that prepend into a memcpy it cannot prove disjoint and fails the Release build
// with a false -Werror=restrict (GCC bug 105329).
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(std::string_view(parts)), ...);
  return s;
}

std::string op_where(const HostOp& op, std::size_t index) {
  std::string s = cat("op #", std::to_string(index));
  if (op.source_line) s.append(cat(" (line ", std::to_string(op.source_line), ")"));
  return s;
}

// Called for Kernel / Memset / Copy ops only.
DeviceOpKind device_kind(HostOpKind k) {
  switch (k) {
    case HostOpKind::Memset: return DeviceOpKind::Memset;
    case HostOpKind::Copy: return DeviceOpKind::Copy;
    default: return DeviceOpKind::Kernel;
  }
}

std::string_view label_of(DeviceOpKind k) {
  switch (k) {
    case DeviceOpKind::Memset: return "memset";
    case DeviceOpKind::Copy: return "copy";
    default: return "kernel";
  }
}

}  // namespace

Interpreter::Interpreter(const Program& program, Device& device, FreePolicy& policy, Guard& guard)
    : program_(program), device_(device), policy_(policy), guard_(guard) {
  buffers_.resize(program.buffer_names.size());
  state_.assign(program.buffer_names.size(), BufferState::Unallocated);
  preexisting_.assign(program.buffer_names.size(), 0);
  for (std::size_t i = 0; i < program.preexisting.size(); ++i) {
    const BufferId b = program.preexisting[i];
    if (!valid_buffer(b) || preexisting_[std::size_t(b)]) continue;
    preexisting_[std::size_t(b)] = 1;
    const std::uint64_t bytes = i < program.preexisting_bytes.size() ? program.preexisting_bytes[i] : 0;
    if (bytes > 0) start_allocs_.push_back({b, bytes});
  }
  for (std::size_t i = 0; i < buffers_.size(); ++i) buffers_[i].id = BufferId(i);
  events_.assign(program.event_names.size(), kNoEvent);
}

EventId Interpreter::backend_event(EventId pe) {
  EventId& be = events_[std::size_t(pe)];
  if (be == kNoEvent) {
    be = device_.create_event();
    device_.label_event(be, program_.event_names[std::size_t(pe)]);
  }
  return be;
}

void Interpreter::bad_op(const HostOp& op, const char* what) {
  ++skipped_ops_;
  device_.warn(cat(op_where(op, position()), ": ", what, "; op skipped"));
}

bool Interpreter::next(Plan& plan) {
  if (!started_) {
    started_ = true;
    if (!start_allocs_.empty()) {
      plan_preexisting(plan);
      return true;
    }
  }
  if (cursor_ >= program_.ops.size()) return false;
  const HostOp& op = program_.ops[cursor_++];
  const bool needs_stream = op.kind == HostOpKind::Alloc || op.kind == HostOpKind::Kernel ||
                            op.kind == HostOpKind::Memset || op.kind == HostOpKind::Copy ||
                            op.kind == HostOpKind::RecordEvent || op.kind == HostOpKind::StreamWait ||
                            op.kind == HostOpKind::StreamSync || op.kind == HostOpKind::HostCallback;
  if (needs_stream && !valid_stream(op.stream)) {
    bad_op(op, "stream index out of range");
    return true;
  }
  const bool needs_event = op.kind == HostOpKind::RecordEvent || op.kind == HostOpKind::StreamWait ||
                           op.kind == HostOpKind::EventSync || op.kind == HostOpKind::EventQuery;
  if (needs_event && (op.event < 0 || std::size_t(op.event) >= events_.size())) {
    bad_op(op, "event index out of range");
    return true;
  }
  for (const MutexId m : op.mutexes)
    if (m < 0 || std::size_t(m) >= program_.mutex_names.size()) {
      bad_op(op, "mutex index out of range");
      return true;
    }
  switch (op.kind) {
    case HostOpKind::Alloc: plan_alloc(op, plan); break;
    case HostOpKind::Release: plan_release(op, plan); break;
    case HostOpKind::Kernel:
    case HostOpKind::Memset:
    case HostOpKind::Copy: plan_device_op(op, plan); break;
    case HostOpKind::RecordEvent: {
      const EventId e = backend_event(op.event);
      const StreamId s = op.stream;
      plan.push_back(Step::run([e, s](Backend& b, Plan&) { b.record_event(e, s); }));
      break;
    }
    case HostOpKind::StreamWait: {
      const EventId e = backend_event(op.event);
      const StreamId s = op.stream;
      plan.push_back(Step::run([e, s](Backend& b, Plan&) { b.stream_wait(s, e); }));
      break;
    }
    case HostOpKind::EventSync:
      plan.push_back(Step::of_program(Step::wait_event(backend_event(op.event))));
      break;
    case HostOpKind::EventQuery: {
      const EventId e = backend_event(op.event);
      plan.push_back(Step::run([e](Backend& b, Plan&) { (void)b.query_event(e); }));
      break;
    }
    case HostOpKind::StreamSync: plan.push_back(Step::of_program(Step::wait_stream(op.stream))); break;
    case HostOpKind::DeviceSync: plan.push_back(Step::of_program(Step::wait_all())); break;
    case HostOpKind::BeginExecution: plan.push_back(Step::acquire_semaphore()); break;
    case HostOpKind::EndExecution: plan_end_execution(plan); break;
    case HostOpKind::HostDelay: {
      const Duration d = op.duration;
      Device* dev = &device_;
      plan.push_back(Step::run([dev, d](Backend& b, Plan&) { dev->host_delay(b.chooser().duration(d)); }));
      break;
    }
    case HostOpKind::Shutdown: plan_shutdown(op, plan); break;
    case HostOpKind::Lock:
    case HostOpKind::Unlock:
    case HostOpKind::HostCallback: plan_mutex_op(op, plan); break;
  }
  return true;
}

// ---- Lock / Unlock / HostCallback: the program's host mutexes. A lock is the program's own
// blocking (its wait counts as `sync`); the callback's body duration is drawn on the host when it
// enqueues, so the body itself draws nothing on the callback thread (and the HIP backend's
// callback needs no lock on the chooser).
void Interpreter::plan_mutex_op(const HostOp& op, Plan& plan) {
  if (op.kind != HostOpKind::HostCallback && op.mutexes.size() != 1) return bad_op(op, "lock/unlock needs one mutex");
  Device* dev = &device_;
  switch (op.kind) {
    case HostOpKind::Lock: plan.push_back(Step::of_program(Step::lock_mutex(op.mutexes[0]))); break;
    case HostOpKind::Unlock: {
      const MutexId m = op.mutexes[0];
      plan.push_back(Step::run([dev, m](Backend&, Plan&) { dev->mutex_unlock(m); }));
      break;
    }
    default: {
      const HostOp* p = &op;
      plan.push_back(Step::run([dev, p](Backend& be, Plan&) {
        if (!dev->add_program_callback(p->stream, p->mutexes, be.chooser().duration(p->duration)))
          dev->warn("host_callback: callback enqueue failed; its body never runs");
      }));
      break;
    }
  }
}

// ---- Program start: buffers that existed before a PyTorch trace began are allocated first, on the
// host for the compute stream (no guard: compute needs none), through the same attempt and OOM
// path as any allocation, so their releases later free real pool memory.
void Interpreter::plan_preexisting(Plan& plan) {
  const StreamId compute = device_.compute_stream();
  for (const auto& [b, bytes] : start_allocs_) {
    const BufferId buffer = b;
    const std::uint64_t n = bytes;
    plan.push_back(Step::run([this, compute, n](Backend& be, Plan& next) { policy_.before_allocate(be, compute, n, next); }));
    plan.push_back(alloc_attempt(buffer, compute, kSharedPool, n, 0, 0));
  }
}

// ---- Alloc: guard (non-compute only) and policy hooks, then attempts with the policy's OOM loop.
void Interpreter::plan_alloc(const HostOp& op, Plan& plan) {
  if (!valid_buffer(op.buffer)) return bad_op(op, "buffer index out of range");
  const BufferId b = op.buffer;
  const StreamId s = op.stream;
  const std::uint64_t bytes = op.bytes;
  const bool scratch = !is_compute(s);
  const PoolId pool = scratch ? guard_.pool_for(s) : kSharedPool;
  const std::size_t where = position();
  plan.push_back(Step::run([this, b, s, bytes, scratch, where](Backend& be, Plan& next) {
    if (state_[std::size_t(b)] == BufferState::Live) {
      ++skipped_ops_;
      device_.warn(cat("op #", std::to_string(where), ": Alloc of buffer '", program_.buffer_names[std::size_t(b)],
                       "' which is still live; op skipped"));
      state_[std::size_t(b)] = BufferState::Live;
      next.clear();
      return;
    }
    if (scratch) guard_.before_allocate(be, s, next);
    policy_.before_allocate(be, s, bytes, next);
  }));
  plan.push_back(alloc_attempt(b, s, pool, bytes, 0, 0));
}

Step Interpreter::alloc_attempt(BufferId b, StreamId s, PoolId pool, std::uint64_t bytes, int attempt,
                                TimeNs first_failure) {
  return Step::run([this, b, s, pool, bytes, attempt, first_failure](Backend& be, Plan& next) {
    if (state_[std::size_t(b)] == BufferState::Live) return;  // the duplicate-alloc warning above
    const bool scratch = !is_compute(s);
    std::optional<Chunk> chunk = device_.pool_allocate(pool, bytes);
    if (!chunk) {
      const TimeNs first = attempt == 0 ? be.now() : first_failure;
      const OomDecision d = policy_.on_oom(be, s, bytes, scratch, attempt, first, next);
      if (d.retry) {
        next.push_back(alloc_attempt(b, s, pool, bytes, attempt + 1, first));
        return;
      }
      next.clear();
      state_[std::size_t(b)] = BufferState::Failed;
      device_.note_oom(s, bytes, scratch);
      return;
    }
    BufferInfo& info = buffers_[std::size_t(b)];
    info.id = b;
    info.chunk = *chunk;
    info.requested_bytes = bytes;
    info.alloc_stream = s;
    info.last_use_stream = kNoStream;
    info.use_stream_mask = 0;
    info.alloc_time = be.now();
    state_[std::size_t(b)] = BufferState::Live;
    device_.note_alloc(info);
    if (scratch) guard_.after_allocate(be, info, next);
    policy_.after_allocate(be, info, next);
  });
}

// ---- Release: host refcount -> 0; the policy decides what happens to the chunk.
void Interpreter::plan_release(const HostOp& op, Plan& plan) {
  if (!valid_buffer(op.buffer)) return bad_op(op, "buffer index out of range");
  const BufferId b = op.buffer;
  plan.push_back(Step::run([this, b](Backend& be, Plan& next) {
    BufferInfo& info = buffers_[std::size_t(b)];
    switch (state_[std::size_t(b)]) {
      case BufferState::Live:
        state_[std::size_t(b)] = BufferState::Released;
        device_.note_host_release(info);
        policy_.on_release(be, info, next);
        return;
      case BufferState::Released:
        device_.note_lifetime_violation(
            FindingKind::DoubleFree, info, cat("buffer '", program_.buffer_names[std::size_t(b)], "' released twice by the host program"));
        return;
      case BufferState::Failed: ++skipped_ops_; return;  // its allocation failed: nothing to free
      case BufferState::Unallocated:
        if (preexisting_[std::size_t(b)]) {  // size unknown (0): nothing was allocated at start
          device_.warn("releases of buffers of unknown size allocated before the trace began are ignored");
          state_[std::size_t(b)] = BufferState::Released;
          return;
        }
        device_.note_lifetime_violation(
            FindingKind::UnknownFree, info, cat("buffer '", program_.buffer_names[std::size_t(b)], "' released but never allocated"));
        return;
    }
  }));
}

bool Interpreter::resolve(const std::vector<BufferAccess>& in, std::vector<DeviceAccess>& out, const HostOp& op) {
  out.clear();
  out.reserve(in.size());
  for (const BufferAccess& a : in) {
    if (!valid_buffer(a.buffer)) {
      bad_op(op, "access to a buffer index out of range");
      return false;
    }
    const BufferInfo& info = buffers_[std::size_t(a.buffer)];
    switch (state_[std::size_t(a.buffer)]) {
      case BufferState::Live: break;
      case BufferState::Released:
        device_.note_lifetime_violation(FindingKind::UseAfterRelease, info,
                                        cat("'", label_of(device_kind(op.kind)), "' at ", op_where(op, position()), " uses buffer '",
                                            program_.buffer_names[std::size_t(a.buffer)],
                                            "' after the host released it; op skipped"));
        ++skipped_ops_;
        return false;
      case BufferState::Failed:
        ++skipped_ops_;
        device_.warn("ops touching a buffer whose allocation failed are skipped");
        return false;
      case BufferState::Unallocated:
        if (preexisting_[std::size_t(a.buffer)]) continue;  // memory from before the trace: no address known
        bad_op(op, "access to a buffer that was never allocated");
        return false;
    }
    const std::uint64_t size = info.requested_bytes;
    std::uint64_t offset = a.offset;
    std::uint64_t bytes = a.bytes == 0 ? (offset < size ? size - offset : 0) : a.bytes;
    if (offset > size || bytes > size - offset) {
      device_.warn(cat(op_where(op, position()), ": access beyond the end of buffer '",
                       program_.buffer_names[std::size_t(a.buffer)], "' clamped"));
      offset = offset > size ? size : offset;
      bytes = size - offset;
    }
    if (bytes == 0) continue;
    out.push_back(DeviceAccess{a.buffer, AddrRange{info.chunk.addr + offset, bytes}});
  }
  return true;
}

// ---- Kernel / Memset / Copy: resolve accesses when the host gets there, track last use, launch.
void Interpreter::plan_device_op(const HostOp& op, Plan& plan) {
  const HostOp* p = &op;
  plan.push_back(Step::run([this, p](Backend& be, Plan&) {
    DeviceOp dop;
    dop.kind = device_kind(p->kind);
    dop.label = label_of(dop.kind);
    if (!resolve(p->reads, dop.reads, *p) || !resolve(p->writes, dop.writes, *p)) return;
    dop.duration = be.chooser().duration(p->duration);
    const StreamId s = p->stream;
    auto touch = [&](const std::vector<DeviceAccess>& v) {
      for (const DeviceAccess& a : v) {
        BufferInfo& info = buffers_[std::size_t(a.alloc)];
        info.last_use_stream = s;
        if (s < 64) info.use_stream_mask |= std::uint64_t(1) << s;
      }
    };
    touch(dop.reads);
    touch(dop.writes);
    device_.launch(s, std::move(dop));
  }));
}

// ---- EndExecution: batched policies flush, then ThenExecuteCallback(compute, release the unit).
void Interpreter::plan_end_execution(Plan& plan) {
  plan.push_back(Step::run([this](Backend& be, Plan& next) { policy_.on_end_execution(be, next); }));
  plan.push_back(Step::run([this](Backend& be, Plan&) {
    Device* dev = &device_;
    const bool ok = be.then_execute_callback(
        be.compute_stream(), [dev](Backend&) { dev->semaphore_release(); }, "semaphore-release");
    if (!ok) {
      // Never leak the unit: a lost release would starve every later BeginExecution.
      device_.warn("EndExecution: callback enqueue failed; compute-semaphore unit released at once");
      device_.semaphore_release();
    }
  }));
}

// ---- Shutdown: XLA order drains streams and the callback thread, then destroys the pools;
// wrong_order destroys first, so callbacks still queued free into a destroyed pool (reported).
void Interpreter::plan_shutdown(const HostOp& op, Plan& plan) {
  plan.push_back(Step::run([this](Backend& be, Plan& next) { policy_.on_shutdown(be, next); }));
  auto destroy = Step::run([this](Backend&, Plan&) {
    device_.destroy_pool(kSharedPool);
    device_.destroy_pool(kPrivatePool);
  });
  if (op.wrong_order) {
    plan.push_back(std::move(destroy));
    plan.push_back(Step::of_program(Step::wait_all()));
  } else {
    plan.push_back(Step::of_program(Step::wait_all()));
    plan.push_back(std::move(destroy));
  }
}

void Interpreter::finish() {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (state_[i] != BufferState::Live) continue;
    device_.note_lifetime_violation(FindingKind::Leak, buffers_[i],
                                    cat("buffer '", program_.buffer_names[i], "' never released by the host program"));
  }
}

}  // namespace allocsim
