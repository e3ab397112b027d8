// The data pattern that makes corruption visible on a real GPU.
//
// Every write the host program makes to an allocation fills its bytes with 32-bit words derived
// from (allocation id, version, word index); every read checks them on the device and counts the
// words that differ. A mismatch means another allocation (or a memset of another allocation's
// scratch) overwrote the data between the write and the read: manifest corruption, measured.
// Version 0 means "never written" (nothing to check); kZeroVersion marks a memset (all zero).
//
// The same functions run on the host (tests, expectations) and on the device (kernels), so they
// are plain constexpr arithmetic with no library calls.
#pragma once
#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define ALLOCSIM_HD __host__ __device__
#else
#define ALLOCSIM_HD
#endif

namespace allocsim::hw {

inline constexpr std::uint32_t kUnwrittenVersion = 0;
inline constexpr std::uint32_t kZeroVersion = 0xFFFFFFFFu;  // written by a memset: every word 0

/// splitmix-style 32-bit finaliser: adjacent inputs give unrelated words.
ALLOCSIM_HD constexpr std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/// The key of one (allocation, version): folded once per segment, then mixed with the word index.
ALLOCSIM_HD constexpr std::uint32_t pattern_key(std::int32_t alloc, std::uint32_t version) {
  return mix32(static_cast<std::uint32_t>(alloc) * 0x9E3779B9U ^ mix32(version + 0x632BE5ABU));
}

/// Expected word `word_index` (counted from the start of the allocation) for `key`.
/// Never 0, so a zeroing memset over patterned data is always a mismatch.
ALLOCSIM_HD constexpr std::uint32_t pattern_word(std::uint32_t key, std::uint64_t word_index) {
  std::uint32_t w = mix32(key ^ static_cast<std::uint32_t>(word_index) ^
                          static_cast<std::uint32_t>(word_index >> 32) * 0x85EBCA6BU);
  return w == 0 ? 1u : w;
}

/// What a word written with `version` must read back as.
ALLOCSIM_HD constexpr std::uint32_t expected_word(std::int32_t alloc, std::uint32_t version, std::uint64_t word_index) {
  return version == kZeroVersion ? 0u : pattern_word(pattern_key(alloc, version), word_index);
}

/// Whole 32-bit words inside the byte range [offset, offset + bytes) of an allocation:
/// first word index and count (partial words at either end are not patterned).
struct WordSpan {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};
ALLOCSIM_HD constexpr WordSpan words_in(std::uint64_t offset, std::uint64_t bytes) {
  std::uint64_t first = (offset + 3) / 4;
  std::uint64_t end = (offset + bytes) / 4;
  return end > first ? WordSpan{first, end - first} : WordSpan{first, 0};
}

}  // namespace allocsim::hw
