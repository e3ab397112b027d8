// Address -> chunk handle for live allocations: an open-addressing hash table (linear probing,
// backward-shift deletion, no tombstones). Why not a page table like TSL's (one handle per 256 B
// of pool): a 16 GiB pool would need 64 M entries; the live set is a few thousand at most.
// Keys are 256-aligned addresses; ~0 marks an empty slot (never a chunk address).
#pragma once
#include <cstdint>
#include <vector>

namespace allocsim::pool_detail {

inline constexpr std::uint32_t kNoHandle = 0xffffffffu;

class AddrMap {
 public:
  AddrMap() { rehash(64); }

  std::size_t size() const { return size_; }

  /// Precondition: `key` is not present.
  void insert(std::uint64_t key, std::uint32_t value) {
    if ((size_ + 1) * 4 > slots_.size()) rehash(slots_.size() * 2);  // load <= 1/4: short probes
    std::size_t i = home(key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i] = Slot{key, value};
    ++size_;
  }

  /// The value for `key`, or kNoHandle.
  std::uint32_t find(std::uint64_t key) const {
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].value;
      if (slots_[i].key == kEmpty) return kNoHandle;
    }
  }

  /// Removes `key`; returns its value, or kNoHandle if absent.
  std::uint32_t erase(std::uint64_t key) {
    std::size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) break;
      if (slots_[i].key == kEmpty) return kNoHandle;
    }
    const std::uint32_t value = slots_[i].value;
    // Backward shift: pull later members of the probe run into the hole when that keeps them
    // reachable from their home slot.
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].key);
      if (((j - h) & mask_) >= ((j - hole) & mask_)) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].key = kEmpty;
    --size_;
    return value;
  }

  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const Slot& s : slots_)
      if (s.key != kEmpty) fn(s.key, s.value);
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct Slot {
    std::uint64_t key = kEmpty;
    std::uint32_t value = kNoHandle;
  };

  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>(((key >> 8) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void rehash(std::size_t capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (const Slot& s : old)
      if (s.key != kEmpty) insert(s.key, s.value);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace allocsim::pool_detail
