// Vector clocks over a handful of agents (host thread, callback thread, streams), and the sync
// objects that carry them between agents (TSan-style release/acquire, observer.h).
//
// Why flat and small: there are 2 + #streams agents (usually < 10), so a clock is a short array of
// 32-bit counters and a join is a few compares. Agents appear lazily (callback streams are created
// on first use), so clocks grow on demand; a missing entry reads as 0.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include "allocsim/core/types.h"

namespace allocsim::race {

using Clock = std::uint32_t;

class VectorClock {
 public:
  Clock get(AgentId a) const { return std::size_t(a) < c_.size() ? c_[std::size_t(a)] : 0; }
  void set(AgentId a, Clock v) {
    if (std::size_t(a) >= c_.size()) c_.resize(std::size_t(a) + 1, 0);
    c_[std::size_t(a)] = v;
  }
  void join(const VectorClock& o) {
    if (o.c_.size() > c_.size()) c_.resize(o.c_.size(), 0);
    for (std::size_t i = 0; i < o.c_.size(); ++i) c_[i] = std::max(c_[i], o.c_[i]);
  }
  void assign(const VectorClock& o) { c_.assign(o.c_.begin(), o.c_.end()); }
  void clear() { c_.clear(); }

 private:
  boost::container::small_vector<Clock, 8> c_;  // no heap for up to 8 agents
};

/// Clock storage with slot reuse: sync objects and pool-lock ranges hold a slot index, so
/// releasing and acquiring millions of one-shot sync objects allocates nothing after warm-up.
class ClockPool {
 public:
  static constexpr std::int32_t kNone = -1;
  std::int32_t make(const VectorClock& init) {
    std::int32_t s;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
      slots_[std::size_t(s)].assign(init);
    } else {
      s = std::int32_t(slots_.size());
      slots_.push_back(init);
    }
    return s;
  }
  void drop(std::int32_t s) {
    slots_[std::size_t(s)].clear();
    free_.push_back(s);
  }
  VectorClock& at(std::int32_t s) { return slots_[std::size_t(s)]; }

 private:
  std::vector<VectorClock> slots_;
  std::vector<std::int32_t> free_;
};

/// Sync objects keyed by observer.h sync_key. Release joins the releaser's clock into the object
/// (TSan's Release); acquire joins the object into the acquirer. `one_shot` objects (an enqueued
/// op, a callback hand-off: released once, acquired once) are dropped at their acquire so memory
/// stays bounded over a million-op run. Enqueued-op objects (ids = increasing op_seqs) live in a
/// dense window instead of the hash map: one per op, so this is the detector's hottest structure.
class SyncObjects {
 public:
  void release(std::uint64_t key, const VectorClock& vc) {
    std::uint64_t id = key & kIdMask;
    if (kind_of(key) == kEnqueuedOp && id >= base_) {
      if (window_.empty()) base_ = id;
      std::uint64_t i = id - base_;
      if (i < kMaxWindow) {
        if (i == window_.size()) window_.push_back(ClockPool::kNone);
        else if (i > window_.size()) window_.resize(std::size_t(i) + 1, ClockPool::kNone);
        std::int32_t& slot = window_[std::size_t(i)];
        if (slot == ClockPool::kNone) slot = pool_.make(vc);
        else pool_.at(slot).join(vc);
        return;
      }
    }
    auto [it, inserted] = map_.try_emplace(key, ClockPool::kNone);
    if (inserted) it->second = pool_.make(vc);
    else pool_.at(it->second).join(vc);
  }
  /// Joins the object into `into`; returns false if nothing was ever released to it.
  bool acquire(std::uint64_t key, VectorClock& into, bool one_shot) {
    std::uint64_t id = key & kIdMask;
    if (kind_of(key) == kEnqueuedOp && id >= base_ && id - base_ < window_.size()) {
      std::int32_t& slot = window_[std::size_t(id - base_)];
      if (slot != ClockPool::kNone) {
        into.join(pool_.at(slot));
        if (one_shot) {
          pool_.drop(slot);
          slot = ClockPool::kNone;
          while (!window_.empty() && window_.front() == ClockPool::kNone) {
            window_.pop_front();
            ++base_;
          }
        }
        return true;
      }
    }
    auto it = map_.find(key);
    if (it == map_.end()) return false;
    into.join(pool_.at(it->second));
    if (one_shot) {
      pool_.drop(it->second);
      map_.erase(it);
    }
    return true;
  }
  std::size_t size() const { return map_.size() + window_.size(); }

 private:
  static constexpr std::uint64_t kIdMask = (std::uint64_t(1) << 56) - 1;
  static constexpr std::uint8_t kEnqueuedOp = 0;  // SyncKind::EnqueuedOp (observer.h)
  static constexpr std::uint64_t kMaxWindow = std::uint64_t(1) << 24;
  static std::uint8_t kind_of(std::uint64_t key) { return std::uint8_t(key >> 56); }

  std::deque<std::int32_t> window_;  // slot per op id from base_ (kNone: free or never released)
  std::uint64_t base_ = 0;
  // Open addressing: event records, stream drains etc. insert one key each (no node malloc).
  boost::unordered_flat_map<std::uint64_t, std::int32_t> map_;
  ClockPool pool_;
};

}  // namespace allocsim::race
