// The sim backend's host thread (state in host_thread.h): it takes the interpreter's Plans and
// runs their steps in order, charging host time; a Wait step blocks it until another entity makes
// the condition true (or an OOM wait's deadline passes), and the wake-up resumes it here.
#include <algorithm>

#include "allocsim/engine/interpreter.h"
#include "sim_device.h"

namespace allocsim {

void SimDevice::host_run() {
  current_ = Agent::Host;
  for (;;) {
    if (host_.now > now_) {
      // Another entity has something due before the host's clock: let it happen first.
      if (!queue_.empty() && queue_.top_time() <= host_.now) {
        mem_.flush();
        queue_.push(host_.now, kHostResume, 0, host_.gen);
        return;
      }
      now_ = host_.now;
    }
    if (host_.plan.empty()) {
      host_step_done();
      if (host_.in_release) {
        host_.release_ns += host_.now - host_.release_start;
        host_.in_release = false;
      }
      Plan plan;
      if (!interp_->next(plan)) {
        mem_.flush();
        interp_->finish();
        host_.done = true;
        host_.wait = HostWait::Done;
        return;
      }
      const HostOp* op = interp_->current_op();
      if (op && op->kind == HostOpKind::Release) {
        host_.in_release = true;
        host_.release_start = host_.now;
      }
      host_.plan.append(std::move(plan));
      if (host_step_held(interp_->position())) return;
      continue;
    }
    const std::optional<Step> wait = host_.plan.next(*this);
    if (host_.slot_wait) {
      host_.slot_wait = false;
      host_block(HostWait::CallbackSlot, kNever);  // no event ran during the step: still full
      return;
    }
    if (!wait) continue;
    const Step& step = *wait;
    host_.cause = HostThread::cause_of(step);  // counts only if the step blocks
    switch (step.kind) {
      case Step::Kind::Do:
        break;  // already run by host_.plan.next
      case Step::Kind::WaitEvent: {
        if (!valid_event(step.event)) {
          warn("host synchronize on an invalid event ignored");
          break;
        }
        const std::uint64_t rec = streams_.latest(step.event);
        touch_progress(streams_.record_stream(rec));
        if (streams_.done(rec)) {
          if (rec) acquire(kHostAgent, sync_key(SyncKind::Event, rec));
          break;
        }
        host_.wait_rec = rec;
        host_block(HostWait::Event, kNever);
        return;
      }
      case Step::Kind::WaitStream:
        if (!valid_stream(step.stream)) {
          warn("host synchronize on an invalid stream ignored");
          break;
        }
        touch_progress(step.stream);
        if (streams_.idle(step.stream)) {
          acquire_drain(step.stream);
          break;
        }
        host_.wait_stream = step.stream;
        host_block(HostWait::Stream, kNever);
        return;
      case Step::Kind::WaitAll:
        for (std::size_t s = 0; s < streams_.size(); ++s) touch_progress(StreamId(s));
        if (all_idle()) {
          acquire_all_idle();
          break;
        }
        host_block(HostWait::All, kNever);
        return;
      case Step::Kind::WaitPoolFree:
        if (step.deadline <= host_.now) break;
        host_.wait_pool = step.pool;
        host_block(HostWait::PoolFree, step.deadline);
        return;
      case Step::Kind::AcquireSemaphore:
        touch(StepObject{StepObject::Kind::Semaphore, true, 0});
        if (sem_free_ > 0) {
          --sem_free_;
          acquire(kHostAgent, sync_key(SyncKind::Semaphore, 0));
          break;
        }
        host_block(HostWait::Semaphore, kNever);
        return;
      case Step::Kind::LockMutex:
        if (host_lock(step.mutex)) break;
        return;
    }
  }
}

void SimDevice::host_block(HostWait why, TimeNs deadline) {
  mem_.flush();
  host_.wait = why;
  host_.waking = false;
  host_.blocked_since = host_.now;
  ++host_.gen;
  if (deadline != kNever) queue_.push(deadline, kHostResume, 0, host_.gen);
}

void SimDevice::host_resume(std::uint64_t gen) {
  if (gen != host_.gen) return;  // a superseded deadline timer
  if (host_.wait == HostWait::Done) return;
  if (host_.wait != HostWait::None) {
    const bool in_driver_call = host_.wait == HostWait::CallbackSlot;
    const TimeNs from = host_.blocked_since;
    std::string_view why;
    switch (host_.wait) {
      case HostWait::Event:
        why = "event-sync";
        acquire(kHostAgent, sync_key(SyncKind::Event, host_.wait_rec));
        break;
      case HostWait::Stream:
        why = "stream-sync";
        acquire_drain(host_.wait_stream);
        break;
      case HostWait::All:
        why = "device-sync";
        acquire_all_idle();
        break;
      case HostWait::PoolFree:
        why = "oom-wait";
        break;
      case HostWait::Hold:
        why = "schedule-hold";
        break;
      case HostWait::Semaphore:
        why = "semaphore";
        --sem_free_;
        acquire(kHostAgent, sync_key(SyncKind::Semaphore, 0));
        break;
      case HostWait::CallbackSlot:
        why = kCallbackSlotWait;
        break;
      case HostWait::Mutex:  // handed over by its unlock (callback_release_mutexes)
        why = "mutex";
        mutexes_.host_granted = false;
        acquire(kHostAgent, sync_key(SyncKind::Mutex, std::uint64_t(host_.wait_mutex)));
        break;
      default:
        break;
    }
    if (host_.sleeping()) host_.slept = true;
    host_.wait = HostWait::None;
    host_.waking = false;
    host_.now = std::max(host_.now, now_);
    // A launch waiting for a callback slot is inside the driver's call: the host's own time, as
    // the HIP backend's timers see it (TrialStats::host_busy_ns), not a wait it chose.
    if (in_driver_call) host_.busy += host_.now - from;
    else host_.add_blocked(host_.now - from);
    emit([&](auto& o) { o.on_host_blocked(from, host_.now, why); });
  }
  host_.now = std::max(host_.now, now_);
  host_run();
}

bool SimDevice::host_wait_satisfied() const {
  switch (host_.wait) {
    case HostWait::Event:
      return streams_.done(host_.wait_rec);
    case HostWait::Stream:
      return streams_.idle(host_.wait_stream);
    case HostWait::All:
      return all_idle();
    case HostWait::Semaphore:
      return sem_free_ > 0;
    case HostWait::Mutex:
      return mutexes_.host_granted;
    case HostWait::CallbackSlot:
      return callbacks_pending_ < config_.platform.pending_callback_limit;
    default:
      return false;  // PoolFree is woken directly by pool_free
  }
}

void SimDevice::check_host_wait() {
  if (host_.waking || host_.wait == HostWait::None || host_.wait == HostWait::Done ||
      host_.wait == HostWait::PoolFree || host_.wait == HostWait::Hold)
    return;
  if (!host_wait_satisfied()) return;
  // An OOM wait that runs to its deadline resumes at the deadline itself (a timed wait's timeout is
  // what is modelled).
  host_wake((current_ == Agent::Callback ? cb_.now : now_) + host_wakeup_cost());
}

TimeNs SimDevice::host_wakeup_cost() {
  // sync_wakeup_ns for a stream/event/device synchronize, which the HIP backend (and a runtime's
  // synchronize) polls; signal_wakeup_ns for a semaphore acquire or an OOM wait, where the host
  // sleeps on a condition variable until another thread signals it: a sleeping thread's wake-up,
  // many times longer on the H200 (results/hw/h200-edge-2).
  const bool measured = config_.platform.signal_wakeup_ns > 0;  // older profiles: sync_wakeup_ns
  return cost(host_.sleeping() && measured ? &PlatformProfile::signal_wakeup_ns : &PlatformProfile::sync_wakeup_ns);
}

void SimDevice::host_wake(TimeNs at) {
  host_.waking = true;
  ++host_.gen;
  queue_.push(std::max(at, now_), kHostResume, 0, host_.gen);
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

}  // namespace allocsim
