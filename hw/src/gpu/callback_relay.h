// CallbackRelay: the route every host callback of the HIP backend takes. CUDA forbids API calls
// inside a stream callback, and policy code makes them (event queries, the validation's stream
// queries), so HIP's callback thread only queues each callback and wakes ONE thread of ours, which
// runs them FIFO. `allocsim-hw calibrate` times its callbacks through this same relay, so the
// profile's callback latency and back-to-back cost are those of the route validation takes
// (HIP-only header: included by hw/src/gpu/*.hip).
#pragma once
#include <hip/hip_runtime.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace allocsim::hw {

class CallbackRelay {
 public:
  using Clock = std::chrono::steady_clock;

  CallbackRelay() : thread_([this] { loop(); }) {}
  ~CallbackRelay() { stop(); }
  CallbackRelay(const CallbackRelay&) = delete;
  CallbackRelay& operator=(const CallbackRelay&) = delete;

  /// hipStreamAddCallback on `s`: when the stream reaches it, `fn` runs on the relay's thread.
  /// false (fn dropped) when HIP refuses the callback.
  bool enqueue(hipStream_t s, std::function<void()> fn) {
    auto* item = new Item{this, std::move(fn)};
    {
      std::lock_guard<std::mutex> lk(mu_);
      ++outstanding_;
    }
    if (hipStreamAddCallback(s, &CallbackRelay::trampoline, item, 0) == hipSuccess) return true;
    delete item;
    {
      std::lock_guard<std::mutex> lk(mu_);
      --outstanding_;
    }
    cv_.notify_all();
    return false;
  }

  /// When HIP's callback thread handed the running callback over (the stream had reached it), and
  /// when the relay's thread took it up: for the callback's own function to read (relay thread).
  Clock::time_point handed_over() const { return running_handed_over_; }
  Clock::time_point taken_up() const { return running_taken_up_; }

  /// Callbacks enqueued and not yet returned.
  std::uint64_t outstanding() const {
    std::lock_guard<std::mutex> lk(mu_);
    return outstanding_;
  }

  /// Blocks until every enqueued callback has returned (true) or `deadline` passes (false).
  bool wait_idle(Clock::time_point deadline) {
    std::unique_lock<std::mutex> lk(mu_);
    return cv_.wait_until(lk, deadline, [&] { return outstanding_ == 0; });
  }

  /// Runs what is queued, then ends the thread. The caller drains the device first: a callback
  /// HIP has not handed over yet would find the relay gone.
  void stop() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  struct Item {
    CallbackRelay* relay;
    std::function<void()> fn;
    Clock::time_point handed_over{};
  };

  // On HIP's callback thread: queue and wake, nothing else.
  static void trampoline(hipStream_t, hipError_t, void* user) {
    auto* item = static_cast<Item*>(user);
    CallbackRelay* self = item->relay;
    item->handed_over = Clock::now();
    {
      std::lock_guard<std::mutex> lk(self->mu_);
      self->queue_.push_back(item);
    }
    self->cv_.notify_all();
  }

  void loop() {
    for (;;) {
      Item* item;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping and drained
        item = queue_.front();
        queue_.pop_front();
      }
      running_handed_over_ = item->handed_over;
      running_taken_up_ = Clock::now();
      item->fn();  // the owner's function catches what it throws
      delete item;
      {
        std::lock_guard<std::mutex> lk(mu_);
        --outstanding_;
      }
      cv_.notify_all();
    }
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item*> queue_;
  std::uint64_t outstanding_ = 0;
  bool stopping_ = false;
  Clock::time_point running_handed_over_{}, running_taken_up_{};  // the relay thread's own
  std::thread thread_;  // last: starts after the state above exists
};

}  // namespace allocsim::hw
