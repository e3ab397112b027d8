// Sync objects keyed by observer.h sync_key, carrying vector clocks between agents (TSan-style:
// release joins the releaser's clock into the object, acquire joins the object into the acquirer).
//
// `one_shot` objects (an enqueued op, a callback hand-off: released once, acquired once) are
// dropped at their acquire, so memory stays bounded over a million-op run. Enqueued-op objects are
// the hottest structure of the detector (one release by the host and one acquire by a stream per
// op); their ids are increasing op_seqs, so they live in a ring indexed by id - base with the clock
// stored in the slot: a release is a copy of a fixed-size clock, an acquire one vector max, no hash
// lookup and no slot indirection. Everything else (event records, stream drains, ...) goes to an
// open-addressing map of pooled clocks.
#pragma once
#include <cstdint>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include "vector_clock.h"

namespace allocsim::race {

class SyncObjects {
 public:
  void release(std::uint64_t key, const VectorClock& vc) {
    const std::uint64_t id = key & kIdMask;
    if (kind_of(key) == kEnqueuedOp && (size_ == 0 || id >= base_)) {
      if (size_ == 0) base_ = id;
      const std::uint64_t i = id - base_;
      if (i < kMaxWindow) {
        if (i >= size_) grow_to(i + 1);
        Slot& s = at(i);
        if (!s.present) {
          s.clock.assign(vc);
          s.present = true;
        } else {
          s.clock.join(vc);
        }
        return;
      }
    }
    auto [it, inserted] = map_.try_emplace(key, ClockPool::kNone);
    if (inserted) it->second = pool_.make(vc);
    else pool_.at(it->second).join(vc);
  }

  /// Joins the object into `into`; returns false if nothing was ever released to it.
  bool acquire(std::uint64_t key, VectorClock& into, bool one_shot) {
    const std::uint64_t id = key & kIdMask;
    if (kind_of(key) == kEnqueuedOp && size_ != 0 && id >= base_ && id - base_ < size_) {
      Slot& s = at(id - base_);
      if (s.present) {
        into.join(s.clock);
        if (one_shot) {
          s.present = false;
          while (size_ != 0 && !ring_[head_].present) {  // drop the acquired prefix
            head_ = (head_ + 1) & (ring_.size() - 1);
            ++base_;
            --size_;
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

  std::size_t size() const { return map_.size() + size_; }

 private:
  static constexpr std::uint64_t kIdMask = (std::uint64_t(1) << 56) - 1;
  static constexpr std::uint8_t kEnqueuedOp = 0;  // SyncKind::EnqueuedOp (observer.h)
  static constexpr std::uint64_t kMaxWindow = std::uint64_t(1) << 24;  // ids further ahead go to the map
  static std::uint8_t kind_of(std::uint64_t key) { return std::uint8_t(key >> 56); }

  struct Slot {
    VectorClock clock;
    bool present = false;  // released and not yet acquired (one-shot)
  };
  Slot& at(std::uint64_t i) { return ring_[(head_ + std::size_t(i)) & (ring_.size() - 1)]; }

  // Makes room for ids base_ .. base_ + n - 1 (new slots empty); the ring's size is a power of two.
  void grow_to(std::uint64_t n) {
    if (n > ring_.size()) {
      std::size_t cap = ring_.empty() ? 64 : ring_.size();
      while (cap < n) cap *= 2;
      std::vector<Slot> bigger(cap);
      for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(at(i));
      ring_ = std::move(bigger);
      head_ = 0;
    }
    for (std::size_t i = size_; i < n; ++i) at(i).present = false;
    size_ = std::size_t(n);
  }

  std::vector<Slot> ring_;  // enqueued-op objects for ids base_ .. base_ + size_ - 1
  std::size_t head_ = 0;    // ring index of base_
  std::size_t size_ = 0;
  std::uint64_t base_ = 0;
  boost::unordered_flat_map<std::uint64_t, std::int32_t> map_;  // other objects -> pool slot
  ClockPool pool_;
};

}  // namespace allocsim::race
