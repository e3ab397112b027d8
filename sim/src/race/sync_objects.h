// Sync objects keyed by observer.h sync_key, carrying vector clocks between agents (TSan-style:
// release joins the releaser's clock into the object, acquire joins the object into the acquirer).
//
// `one_shot` objects (an enqueued op, a callback hand-off: released once, acquired once) are
// dropped at their acquire, so memory stays bounded over a million-op run.
//
// Enqueued-op objects are the detector's hottest structure: one release by the host and one acquire
// by a stream per op. Between two releases the host's clock usually changes only in its own
// component (its tick after each release), so an op's object is stored as the releaser's own clock
// value plus a reference to a shared snapshot of the rest, taken only when the releaser's clock
// changed otherwise (VectorClock::changes). An acquirer remembers the newest snapshot of each
// releaser it has joined; snapshots of one releaser only grow, so an older one needs no join. The
// result is exactly the releaser's clock at the release, at the cost of two compares in the common
// case. The objects live in a ring indexed by op id (ids are increasing op_seqs). Event records and
// callback hand-offs are stored the same way in tables by record id. Everything else (stream
// drains, the semaphore, ...) goes to an open-addressing map of clocks.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include "vector_clock.h"

namespace allocsim::race {

class SyncObjects {
 public:
  void release(AgentId releaser, std::uint64_t key, const VectorClock& vc) {
    const std::uint64_t id = key & kIdMask;
    Pending* p = nullptr;
    if (kind_of(key) == kEnqueuedOp) p = ring_slot_for_release(id);
    else if (std::vector<Pending>* table = dense_table(kind_of(key)); table && id < kMaxDenseId) {
      if (id >= table->size()) table->resize(std::max<std::size_t>(std::size_t(id) + 1, table->size() * 2));
      p = &(*table)[std::size_t(id)];
    }
    if (p) {
      if (p->releaser < 0) {
        const Snapshot& sn = snapshot_of(releaser, vc);
        ++refs_[std::size_t(sn.slot)];
        *p = {releaser, vc.get(releaser), sn.seq, sn.slot, false};
        return;
      }
      p->also_in_map = true;  // released twice (the engines do not): later releases join in the map
    }
    auto [it, inserted] = map_.try_emplace(key, ClockPool::kNone);
    if (inserted) it->second = pool_.make(vc);
    else pool_.at(it->second).join(vc);
  }

  /// Joins the object into `into` (the clock of agent `acquirer`); returns false if nothing was
  /// ever released to it.
  bool acquire(AgentId acquirer, std::uint64_t key, VectorClock& into, bool one_shot) {
    const std::uint64_t id = key & kIdMask;
    bool found = false;
    if (kind_of(key) == kEnqueuedOp) {
      if (size_ != 0 && id >= base_ && id - base_ < size_) {
        Pending& p = at(id - base_);
        if (p.releaser >= 0) {
          found = true;
          const bool also_in_map = p.also_in_map;
          join(p, acquirer, into, one_shot);
          if (one_shot)
            while (size_ != 0 && ring_[head_].releaser < 0) {  // drop the acquired prefix
              head_ = (head_ + 1) & (ring_.size() - 1);
              ++base_;
              --size_;
            }
          if (!also_in_map) return true;
        }
      }
    } else if (std::vector<Pending>* table = dense_table(kind_of(key)); table && id < table->size()) {
      Pending& p = (*table)[std::size_t(id)];
      if (p.releaser >= 0) {
        found = true;
        const bool also_in_map = p.also_in_map;
        join(p, acquirer, into, one_shot);
        if (!also_in_map) return true;
      }
    }
    auto it = map_.find(key);
    if (it == map_.end()) return found;
    into.join(pool_.at(it->second));
    if (one_shot) {
      pool_.drop(it->second);
      map_.erase(it);
    }
    return true;
  }

 private:
  static constexpr std::uint64_t kIdMask = (std::uint64_t(1) << 56) - 1;
  static constexpr std::uint8_t kEnqueuedOp = 0;  // SyncKind::EnqueuedOp (observer.h)
  static constexpr std::uint64_t kMaxWindow = std::uint64_t(1) << 24;  // ids further ahead go to the map
  static std::uint8_t kind_of(std::uint64_t key) { return std::uint8_t(key >> 56); }

  // Event records, callback hand-offs and callback returns are numbered by the engine's counters
  // (dense, increasing), so they are kept by id as well; an event record may be acquired many times.
  static constexpr std::uint8_t kEvent = 1, kCallbackHandoff = 3, kCallbackDone = 6;  // SyncKind (observer.h)
  static constexpr std::uint64_t kMaxDenseId = std::uint64_t(1) << 26;  // larger ids go to the map

  struct Pending {  // an object released once: the releaser's clock = snapshot + own component
    AgentId releaser = -1;  // -1: empty (acquired, or never released)
    Clock own = 0;
    std::uint32_t seq = 0;  // the snapshot's number among the releaser's snapshots
    std::int32_t slot = ClockPool::kNone;
    bool also_in_map = false;  // released more than once: the rest is in map_
  };
  struct Snapshot {  // a releaser's latest snapshot
    std::uint32_t changes = 0;  // the releaser clock's changes() when it was taken
    std::uint32_t seq = 0;      // 0: none yet
    std::int32_t slot = ClockPool::kNone;
  };

  std::vector<Pending>* dense_table(std::uint8_t kind) {
    switch (kind) {
      case kEvent: return &events_;
      case kCallbackHandoff: return &handoffs_;
      case kCallbackDone: return &callback_dones_;
      default: return nullptr;
    }
  }

  // The enqueued op `id`'s entry for its release (nullptr: outside the ring's window, use the map).
  Pending* ring_slot_for_release(std::uint64_t id) {
    if (size_ != 0 && (id < base_ || id - base_ >= kMaxWindow)) return nullptr;
    if (size_ == 0) base_ = id;
    const std::uint64_t i = id - base_;
    if (i == size_ && size_ < ring_.size()) [[likely]] {
      ++size_;  // the next id, room in the ring (its entry is empty: acquired or never used)
      at(i).releaser = -1;
    } else if (i >= size_) {
      grow_to(i + 1);
    }
    return &at(i);
  }

  // Joins the object `p` into agent `acquirer`'s clock `into`; a one-shot object is dropped.
  void join(Pending& p, AgentId acquirer, VectorClock& into, bool one_shot) {
    into.raise(p.releaser, p.own);
    std::uint32_t& last = last_joined(acquirer, p.releaser);
    if (p.seq > last) {
      into.join(pool_.at(p.slot));
      last = p.seq;
    }
    if (one_shot) {
      unref(p.slot);
      p.releaser = -1;
    }
  }

  const Snapshot& snapshot_of(AgentId releaser, const VectorClock& vc) {
    if (std::size_t(releaser) >= snapshots_.size()) snapshots_.resize(std::size_t(releaser) + 1);
    Snapshot& sn = snapshots_[std::size_t(releaser)];
    if (sn.seq == 0 || sn.changes != vc.changes()) {
      if (sn.slot != ClockPool::kNone) unref(sn.slot);  // no longer the latest
      sn.slot = pool_.make(vc);
      if (std::size_t(sn.slot) >= refs_.size()) refs_.resize(std::size_t(sn.slot) + 1, 0);
      refs_[std::size_t(sn.slot)] = 1;  // held as the latest
      sn.changes = vc.changes();
      ++sn.seq;
    }
    return sn;
  }
  void unref(std::int32_t slot) {
    if (--refs_[std::size_t(slot)] == 0) pool_.drop(slot);
  }
  std::uint32_t& last_joined(AgentId acquirer, AgentId releaser) {
    const std::size_t a = std::size_t(acquirer), r = std::size_t(releaser);
    if (a >= stride_ || r >= stride_) [[unlikely]]
      widen(std::max(a, r) + 1);
    return last_joined_[a * stride_ + r];
  }
  [[gnu::noinline]] void widen(std::size_t agents) {
    std::vector<std::uint32_t> wider(agents * agents, 0);
    for (std::size_t a = 0; a < stride_; ++a)
      for (std::size_t r = 0; r < stride_; ++r) wider[a * agents + r] = last_joined_[a * stride_ + r];
    last_joined_ = std::move(wider);
    stride_ = agents;
  }

  Pending& at(std::uint64_t i) { return ring_[(head_ + std::size_t(i)) & (ring_.size() - 1)]; }

  // Makes room for ids base_ .. base_ + n - 1 (new entries empty); the ring's size is a power of two.
  void grow_to(std::uint64_t n) {
    if (n > ring_.size()) {
      std::size_t cap = ring_.empty() ? 64 : ring_.size();
      while (cap < n) cap *= 2;
      std::vector<Pending> bigger(cap);
      for (std::size_t i = 0; i < size_; ++i) bigger[i] = at(i);
      ring_ = std::move(bigger);
      head_ = 0;
    }
    for (std::size_t i = size_; i < n; ++i) at(i).releaser = -1;
    size_ = std::size_t(n);
  }

  std::vector<Pending> ring_;  // enqueued-op objects for ids base_ .. base_ + size_ - 1
  std::size_t head_ = 0;       // ring index of base_
  std::size_t size_ = 0;
  std::uint64_t base_ = 0;
  std::vector<Pending> events_, handoffs_, callback_dones_;  // by record / callback id
  std::vector<Snapshot> snapshots_;                          // by releaser
  std::vector<std::uint32_t> refs_;                          // by pool slot: pending objects + latest
  std::vector<std::uint32_t> last_joined_;  // [acquirer * stride_ + releaser] -> snapshot seq joined
  std::size_t stride_ = 0;                   // agents the table covers
  boost::unordered_flat_map<std::uint64_t, std::int32_t> map_;  // other objects -> pool slot
  ClockPool pool_;
};

}  // namespace allocsim::race
