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
    const std::size_t i = std::size_t(a);
    if (i < kInline) [[likely]] {
      c_[i] = v;
      return;
    }
    if (i - kInline >= more_.size()) more_.resize(i - kInline + 1, 0);
    more_[i - kInline] = v;
  }
  // Fixed lanes: a join or copy is a few branch-free vector instructions (a per-op cost: every
  // enqueued op is a release by the host and an acquire by its stream).
  void join(const VectorClock& o) {
    // lane-wise max as one vector operation (GCC/Clang vector extension; -O2 leaves the plain loop
    // scalar, and joins run once per enqueued op)
    Lanes x, y;
    std::memcpy(&x, c_.data(), sizeof x);
    std::memcpy(&y, o.c_.data(), sizeof y);
    x = x < y ? y : x;
    std::memcpy(c_.data(), &x, sizeof x);
    if (!o.more_.empty()) [[unlikely]]
      join_more(o);
  }
  void assign(const VectorClock& o) {
    c_ = o.c_;
    if (!more_.empty() || !o.more_.empty()) [[unlikely]]
      more_.assign(o.more_.begin(), o.more_.end());
  }
  bool operator==(const VectorClock& o) const {
    if (c_ != o.c_) return false;
    // trailing zeros in the spill part do not change the clock
    const auto& longer = more_.size() >= o.more_.size() ? more_ : o.more_;
    const auto& shorter = more_.size() >= o.more_.size() ? o.more_ : more_;
    for (std::size_t i = 0; i < longer.size(); ++i)
      if (longer[i] != (i < shorter.size() ? shorter[i] : 0)) return false;
    return true;
  }
  void clear() {
    c_.fill(0);
    more_.clear();
  }

 private:
  [[gnu::noinline]] void join_more(const VectorClock& o) {
    if (o.more_.size() > more_.size()) more_.resize(o.more_.size(), 0);
    for (std::size_t i = 0; i < o.more_.size(); ++i) more_[i] = std::max(more_[i], o.more_[i]);
  }
  using Lanes = Clock __attribute__((vector_size(sizeof(Clock) * kInline)));
  std::array<Clock, kInline> c_{};
  std::vector<Clock> more_;
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
