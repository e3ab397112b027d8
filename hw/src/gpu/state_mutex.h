// StateMutex: the HIP backend's lock over its own state (pools, events, versions), taken by the
// host thread for each backend call and by the callback relay's thread for each policy callback.
//
// Why not a plain std::recursive_mutex: the host thread launches op after op, each call taking
// and dropping the lock within microseconds, while a relay thread that blocked on it needs a
// futex wake-up (tens of microseconds) before it can retry; a plain mutex then hands the lock back
// to the host every time, and a free the GPU has long allowed waits until the host stops to wait.
// A runtime's allocator lock is held around the allocator call, not around every launch, so that
// wait is the harness's, not the program's. With `callbacks_first`, a host thread about to take
// the lock yields while the relay waits for it, so a callback waits for at most the call the host
// is in (the default: HwDeviceOptions::callbacks_first). Recursive for both threads (policy code
// in a callback calls back into the backend).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace allocsim::hw {

class StateMutex {
 public:
  explicit StateMutex(bool callbacks_first) : callbacks_first_(callbacks_first) {}

  /// Host thread (and nested calls of either thread). Time spent waiting (yielding, or blocked
  /// on the mutex) adds to wait_ns: the host's time lost to callbacks.
  void lock() {
    if (owner_.load(std::memory_order_relaxed) == std::this_thread::get_id()) return take();
    if (!callback_waiting_.load(std::memory_order_acquire) && mu_.try_lock()) return took();
    const auto t0 = std::chrono::steady_clock::now();
    if (callbacks_first_)
      while (callback_waiting_.load(std::memory_order_acquire)) std::this_thread::yield();
    take();
    wait_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  }
  /// The lock() waits since the last call (read between trials, when nothing else runs).
  std::int64_t take_wait_ns() { return wait_ns_.exchange(0); }
  void unlock() {
    if (--depth_ == 0) owner_.store(std::thread::id(), std::memory_order_relaxed);
    mu_.unlock();
  }
  /// The relay's thread, before a policy callback: announces itself so the host lets it in.
  void lock_for_callback() {
    callback_waiting_.store(true, std::memory_order_release);
    take();
    callback_waiting_.store(false, std::memory_order_release);
  }

 private:
  void take() {
    mu_.lock();
    took();
  }
  void took() {
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    ++depth_;
  }

  const bool callbacks_first_;
  std::recursive_mutex mu_;
  std::atomic<std::thread::id> owner_{};
  int depth_ = 0;  // guarded by mu_
  std::atomic<bool> callback_waiting_{false};
  std::atomic<std::int64_t> wait_ns_{0};
};

}  // namespace allocsim::hw
