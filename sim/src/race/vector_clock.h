// Vector clocks over a handful of agents (host thread, callback thread, streams) and the slot pool
// that stores clocks for sync objects and pool-lock ranges.
//
// Why flat and small: there are 2 + #streams agents (usually < 10), so a clock is a fixed array of
// 8 32-bit counters (more agents spill into a vector) and a join is a few vector instructions.
// Agents appear lazily (callback streams are created on first use); a missing entry reads as 0.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>


#include "allocsim/core/types.h"

namespace allocsim::race {

using Clock = std::uint32_t;

class VectorClock {
 public:
  static constexpr std::size_t kInline = 8;  // agents held in a fixed array; more go to a heap vector
  Clock get(AgentId a) const {
    const std::size_t i = std::size_t(a);
    if (i < kInline) [[likely]]
      return c_[i];
    return i - kInline < more_.size() ? more_[i - kInline] : 0;
  }
  void set(AgentId a, Clock v) {
    ++changes_;
    const std::size_t i = std::size_t(a);
    if (i < kInline) [[likely]] {
      c_[i] = v;
      return;
    }
    if (i - kInline >= more_.size()) more_.resize(i - kInline + 1, 0);
    more_[i - kInline] = v;
  }
  /// The owner's own step (after a release): not counted in changes(), see there.
  void tick(AgentId own) {
    const std::size_t i = std::size_t(own);
    if (i < kInline) [[likely]]
      ++c_[i];
    else
      set_more(i, get(own) + 1);
  }
  /// Raises one component to at least v.
  void raise(AgentId a, Clock v) {
    if (get(a) < v) set(a, v);
  }
  /// Counts changes other than the owner's tick(): equal counts mean the clock differs from an
  /// earlier copy at most in the owner's own component (SyncObjects snapshots on that).
  std::uint32_t changes() const { return changes_; }
  // Fixed lanes: a join or copy is a few branch-free vector instructions (a per-op cost: every
  // enqueued op is a release by the host and an acquire by its stream).
  void join(const VectorClock& o) {
    // lane-wise max as one vector operation (GCC/Clang vector extension; -O2 leaves the plain loop
    // scalar, and joins run once per enqueued op)
    Lanes x, y;
    std::memcpy(&x, c_.data(), sizeof x);
    std::memcpy(&y, o.c_.data(), sizeof y);
    const Lanes m = x < y ? y : x;
    if (any(m != x)) {
      std::memcpy(c_.data(), &m, sizeof m);
      ++changes_;
    }
    if (!o.more_.empty()) [[unlikely]]
      join_more(o);
  }
  void assign(const VectorClock& o) {
    ++changes_;
    c_ = o.c_;
    if (!more_.empty() || !o.more_.empty()) [[unlikely]]
      more_.assign(o.more_.begin(), o.more_.end());
  }
  /// Equal counters (the change count is bookkeeping, not part of the clock).
  bool operator==(const VectorClock& o) const {
    Lanes x, y;
    std::memcpy(&x, c_.data(), sizeof x);
    std::memcpy(&y, o.c_.data(), sizeof y);
    if (any(x != y)) return false;
    // trailing zeros in the spill part do not change the clock
    const auto& longer = more_.size() >= o.more_.size() ? more_ : o.more_;
    const auto& shorter = more_.size() >= o.more_.size() ? o.more_ : more_;
    for (std::size_t i = 0; i < longer.size(); ++i)
      if (longer[i] != (i < shorter.size() ? shorter[i] : 0)) return false;
    return true;
  }
  void clear() {
    ++changes_;
    c_.fill(0);
    more_.clear();
  }

 private:
  [[gnu::noinline]] void join_more(const VectorClock& o) {
    if (o.more_.size() > more_.size()) more_.resize(o.more_.size(), 0);
    bool changed = false;
    for (std::size_t i = 0; i < o.more_.size(); ++i)
      if (o.more_[i] > more_[i]) {
        more_[i] = o.more_[i];
        changed = true;
      }
    if (changed) ++changes_;
  }
  void set_more(std::size_t i, Clock v) {
    if (i - kInline >= more_.size()) more_.resize(i - kInline + 1, 0);
    more_[i - kInline] = v;
  }
  using Lanes = Clock __attribute__((vector_size(sizeof(Clock) * kInline)));
  using Mask = std::int32_t __attribute__((vector_size(sizeof(Clock) * kInline)));
  // any lane of a comparison result set (lanes are 0 or -1); no library call
  static bool any(const Mask& m) {
    std::uint64_t w[sizeof(Mask) / 8];
    std::memcpy(w, &m, sizeof m);
    std::uint64_t acc = 0;
    for (std::uint64_t v : w) acc |= v;
    return acc != 0;
  }
  std::array<Clock, kInline> c_{};
  std::vector<Clock> more_;
  std::uint32_t changes_ = 0;
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

}  // namespace allocsim::race
