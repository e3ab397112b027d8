// Free chunks ordered by (size, address): the BFC best-fit order.
//
// TSL's 21 bins are disjoint size ranges searched in ascending order, each sorted by (size,
// address), so "first fit from the request's bin" is the global lower bound in (size, address)
// order. This index keeps that order with finer classes: sizes in units of 256 B, classes 1..7
// exact, then 8 classes per power of two (TLSF-style). Each class is a small sorted vector;
// a bitmap of non-empty classes finds the next class in a few instructions. Inserts and erases
// move a handful of 24-byte entries; once warm nothing is allocated.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace allocsim::pool_detail {

struct FreeEntry {
  std::uint64_t size;
  std::uint64_t addr;
  std::uint32_t handle;
};

class FreeChunkIndex {
 public:
  static constexpr int kSubLog2 = 3;                         // 8 classes per power of two
  static constexpr int kClasses = 8 + (56 - kSubLog2) * 8;   // sizes up to 2^64 bytes
  static constexpr int kWords = (kClasses + 63) / 64;

  static int class_of(std::uint64_t size) {
    const std::uint64_t units = size >> 8;
    if (units < 8) return static_cast<int>(units);
    const int octave = 63 - std::countl_zero(units);
    return 8 + (octave - kSubLog2) * 8 + static_cast<int>((units >> (octave - kSubLog2)) & 7);
  }

  std::size_t size() const { return count_; }

  void insert(std::uint64_t size, std::uint64_t addr, std::uint32_t handle) {
    const int c = class_of(size);
    auto& v = classes_[c];
    if (v.empty() || less(v.back(), FreeEntry{size, addr, 0})) {
      v.push_back(FreeEntry{size, addr, handle});  // the common case: classes hold 0-2 entries
    } else {
      auto it = std::lower_bound(v.begin(), v.end(), FreeEntry{size, addr, 0}, less);
      v.insert(it, FreeEntry{size, addr, handle});
    }
    bits_[c >> 6] |= std::uint64_t{1} << (c & 63);
    ++count_;
  }

  /// Precondition: (size, addr) is present.
  void erase(std::uint64_t size, std::uint64_t addr) {
    const int c = class_of(size);
    auto& v = classes_[c];
    auto it = std::lower_bound(v.begin(), v.end(), FreeEntry{size, addr, 0}, less);
    remove_at(c, static_cast<std::size_t>(it - v.begin()));
  }

  /// Removes and returns the handle of the first entry (in (size, address) order) with
  /// size >= min_size for which fits(entry) holds; kNone-like `none` when there is none.
  template <class Fits>
  std::uint32_t take_first(std::uint64_t min_size, Fits&& fits, std::uint32_t none) {
    int c = class_of(min_size);
    auto& v = classes_[c];
    std::size_t i = static_cast<std::size_t>(
        std::partition_point(v.begin(), v.end(), [&](const FreeEntry& e) { return e.size < min_size; }) -
        v.begin());
    for (; i < v.size(); ++i)
      if (fits(v[i])) return take(c, i);
    for (c = next_class(c + 1); c >= 0; c = next_class(c + 1)) {
      const auto& w = classes_[c];
      for (std::size_t j = 0; j < w.size(); ++j)
        if (fits(w[j])) return take(c, j);
    }
    return none;
  }

  /// Largest free size, 0 when empty.
  std::uint64_t largest() const {
    for (int w = kWords - 1; w >= 0; --w)
      if (bits_[w]) {
        const int c = w * 64 + 63 - std::countl_zero(bits_[w]);
        return classes_[c].back().size;
      }
    return 0;
  }

  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const auto& v : classes_)
      for (const FreeEntry& e : v) fn(e);
  }

  void clear() {
    for (auto& v : classes_) v.clear();
    bits_.fill(0);
    count_ = 0;
  }

 private:
  static bool less(const FreeEntry& a, const FreeEntry& b) {
    return a.size != b.size ? a.size < b.size : a.addr < b.addr;
  }

  /// First non-empty class >= c, or -1.
  int next_class(int c) const {
    if (c >= kClasses) return -1;
    int w = c >> 6;
    std::uint64_t word = bits_[w] & (~std::uint64_t{0} << (c & 63));
    while (word == 0) {
      if (++w >= kWords) return -1;
      word = bits_[w];
    }
    return w * 64 + std::countr_zero(word);
  }

  std::uint32_t take(int c, std::size_t i) {
    const std::uint32_t h = classes_[c][i].handle;
    remove_at(c, i);
    return h;
  }

  void remove_at(int c, std::size_t i) {
    auto& v = classes_[c];
    if (i + 1 == v.size())
      v.pop_back();
    else
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
    if (v.empty()) bits_[c >> 6] &= ~(std::uint64_t{1} << (c & 63));
    --count_;
  }

  std::array<std::vector<FreeEntry>, kClasses> classes_;
  std::array<std::uint64_t, kWords> bits_{};
  std::size_t count_ = 0;
};

}  // namespace allocsim::pool_detail
