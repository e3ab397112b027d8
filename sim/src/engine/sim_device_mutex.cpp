// The sim backend's host mutexes (state in mutex_table.h): the host's lock steps and unlocks, the
// program callbacks whose bodies take mutexes, and what a deadlock through them looks like.
//
// Why they are modelled: real XLA deadlocked through frees routed via host callbacks. A host
// thread held a lock while it waited for a stream, and a callback on that stream needed the same
// lock (openxla/xla #6318: ThenExecuteCallback held LocalDeviceState's mutex across an event record
// while a callback returning a stream to the pool waited for it; #43489: a scratch allocator's
// destructor freed through a host callback while teardown waited). The marker of a blocked
// callback holds its stream (CUDA), so the host's wait never ends: the event queue runs dry and
// the run ends as the engine's deadlock ("deadlock: nothing can make progress ...").
#include <algorithm>
#include <string>

#include "sim_device.h"

namespace allocsim {
namespace {
std::uint64_t mutex_key(MutexId m) { return sync_key(SyncKind::Mutex, std::uint64_t(m)); }
}  // namespace

std::string SimDevice::mutex_name(MutexId m) const {
  if (m >= 0 && std::size_t(m) < program_.mutex_names.size()) return program_.mutex_names[std::size_t(m)];
  return "#" + std::to_string(m);
}

bool SimDevice::host_lock(MutexId m) {
  if (m < 0 || std::size_t(m) >= program_.mutex_names.size()) {
    warn("host lock of an invalid mutex ignored");
    return true;
  }
  touch(StepObject{StepObject::Kind::Mutex, true, std::uint64_t(m)});
  const MutexTable::Owner o = mutexes_.owner(m);
  if (o == MutexTable::Owner::None) {
    mutexes_.set(m, MutexTable::Owner::Host);
    acquire(kHostAgent, mutex_key(m));
    return true;
  }
  // Held by the callback thread: its unlock hands the mutex over. Held by the host itself: a
  // std::mutex locked twice by one thread never returns, and nothing will hand it over here.
  if (o == MutexTable::Owner::Host) warn("host locks mutex '" + mutex_name(m) + "' that it already holds");
  host_.wait_mutex = m;
  host_block(HostWait::Mutex, kNever);
  return false;
}

void SimDevice::mutex_unlock(MutexId m) {
  if (current_ != Agent::Host || mutexes_.owner(m) != MutexTable::Owner::Host) {
    warn("unlock of mutex '" + mutex_name(m) + "' that the host does not hold ignored");
    return;
  }
  touch(StepObject{StepObject::Kind::Mutex, true, std::uint64_t(m)});
  release(kHostAgent, mutex_key(m));
  if (mutexes_.cb_waiting != m) {
    mutexes_.set(m, MutexTable::Owner::None);
    return;
  }
  // The callback thread waits for it: it gets the mutex now and wakes as a blocked thread does.
  mutexes_.set(m, MutexTable::Owner::Callback);
  acquire(kCallbackAgent, mutex_key(m));
  ++mutexes_.taken;
  mutexes_.cb_waiting = kNoMutex;
  cb_.waking = true;
  queue_.push(std::max(host_.now, now_) + cost(&PlatformProfile::sync_wakeup_ns), kCallbackWake, 0);
}

bool SimDevice::add_program_callback(StreamId s, std::vector<MutexId> locks, TimeNs body_ns) {
  for (const MutexId m : locks)
    if (m < 0 || std::size_t(m) >= program_.mutex_names.size()) {
      warn("host callback taking an invalid mutex refused");
      return false;
    }
  std::string what = "host-callback";
  for (std::size_t i = 0; i < locks.size(); ++i) what += (i ? "," : " locks ") + mutex_name(locks[i]);
  const TimeNs body = std::max<TimeNs>(body_ns, 0);
  if (!add_host_callback(s, [this, body](Backend&) { host_delay(body); }, what)) return false;
  if (!locks.empty()) mutexes_.locks_of[cb_.next_id] = std::move(locks);
  return true;
}

bool SimDevice::callback_take_mutexes() {
  if (mutexes_.locks_of.empty()) return true;
  const auto it = mutexes_.locks_of.find(cb_.queue.front().id);
  if (it == mutexes_.locks_of.end()) return true;
  const std::vector<MutexId>& locks = it->second;
  while (mutexes_.taken < locks.size()) {
    const MutexId m = locks[mutexes_.taken];
    if (steps_.active()) steps_.touch(kCallbackAgent, StepObject{StepObject::Kind::Mutex, true, std::uint64_t(m)});
    const MutexTable::Owner o = mutexes_.owner(m);
    if (o == MutexTable::Owner::Host) {  // wait: mutex_unlock hands it over and wakes the thread
      mutexes_.cb_waiting = m;
      return false;
    }
    if (o == MutexTable::Owner::None) {  // (a mutex listed twice is already this body's)
      mutexes_.set(m, MutexTable::Owner::Callback);
      acquire(kCallbackAgent, mutex_key(m));
    }
    ++mutexes_.taken;
  }
  mutexes_.locks_of.erase(it);
  mutexes_.taken = 0;
  mutexes_.cb_waiting = kNoMutex;
  return true;
}

void SimDevice::callback_release_mutexes() {
  // Only the callback that just returned holds mutexes on the callback thread: the next one takes
  // its own only when it is about to start (callback_try), after this.
  bool handed = false;
  for (std::size_t i = 0; i < mutexes_.size(); ++i) {
    const MutexId m = MutexId(i);
    if (mutexes_.owner(m) != MutexTable::Owner::Callback) continue;
    release(kCallbackAgent, mutex_key(m));
    const bool host_waits = host_.wait == HostWait::Mutex && host_.wait_mutex == m && !host_.waking;
    mutexes_.set(m, host_waits ? MutexTable::Owner::Host : MutexTable::Owner::None);
    handed = handed || host_waits;
  }
  if (!handed) return;
  mutexes_.host_granted = true;
  check_host_wait();
}

std::string SimDevice::describe_host_mutex_wait() const {
  const MutexId m = host_.wait_mutex;
  const MutexTable::Owner o = mutexes_.owner(m);
  return "host: waiting for mutex '" + mutex_name(m) + "' (held by " +
         (o == MutexTable::Owner::Callback ? "the callback thread"
          : o == MutexTable::Owner::Host   ? "the host itself"
                                           : "no one") +
         ")";
}

std::string SimDevice::describe_callback_thread() const {
  std::string s = "callback thread: " + std::to_string(cb_.pending()) + " callback(s) pending";
  if (!cb_.busy && mutexes_.cb_waiting != kNoMutex && !cb_.queue.empty()) {
    const SimCallback& next = cb_.queue.front();
    s += ", callback #" + std::to_string(next.id) + " (" + next.what + ") waiting for mutex '" +
         mutex_name(mutexes_.cb_waiting) + "' (held by the host)";
    if (next.stream != kNoStream) s += ", holding stream '" + streams_[next.stream].name + "'";
  }
  return s;
}

}  // namespace allocsim
