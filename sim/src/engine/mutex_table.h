// The sim backend's host mutexes (docs/design.md section 3): who holds each named mutex of the
// program, which mutexes each queued program callback's body takes, and how far the callback
// thread got in taking the next callback's. Pure state; SimDevice (sim_device_mutex.cpp) takes,
// hands over and releases them over the event queue.
//
// Only two agents ever take a mutex, the host thread and the single callback thread, so a mutex
// has at most one waiter: the other agent. An unlock hands the mutex straight to that waiter
// (ownership passes at once, the waiter wakes after sync_wakeup_ns), so a woken agent never finds
// its mutex taken again.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "allocsim/core/types.h"

namespace allocsim {

struct MutexTable {
  enum class Owner : std::uint8_t { None, Host, Callback };

  /// Callback id (SimCallback::id) -> the mutexes its body takes, in order. Callbacks without
  /// mutexes (every policy's) have no entry, so the common path costs one failed lookup.
  std::unordered_map<std::uint64_t, std::vector<MutexId>> locks_of;
  std::size_t taken = 0;            // how many of the next callback's mutexes the callback thread holds
  MutexId cb_waiting = kNoMutex;    // the next callback waits for this one (held by the host)
  bool host_granted = false;        // the host's awaited mutex was handed to it (it wakes)

  Owner owner(MutexId m) const {
    return m >= 0 && std::size_t(m) < owners_.size() ? owners_[std::size_t(m)] : Owner::None;
  }
  void set(MutexId m, Owner o) {
    if (std::size_t(m) >= owners_.size()) owners_.resize(std::size_t(m) + 1, Owner::None);
    owners_[std::size_t(m)] = o;
  }
  std::size_t size() const { return owners_.size(); }

 private:
  std::vector<Owner> owners_;  // by MutexId; grown on first use
};

}  // namespace allocsim
