// The data pattern that makes corruption visible on a real GPU.
//
// Every write the host program makes to an allocation fills its bytes with 32-bit words
//   high 16 bits: the allocation's TAG (unique within a validate run, never 0)
//   low 16 bits:  a hash of (allocation, version, word index)
// and every read checks them on the device. A word that differs from the expected one is
//   - a STALE OWN read when it carries the reading allocation's own tag (an older version of the
//     same allocation: a data race inside one allocation, e.g. autotune candidates reading W while
//     sgd_update rewrites it; not an allocator bug, and the simulator rightly ignores it), or
//   - FOREIGN (manifest corruption) otherwise: another allocation's pattern, or zero from another
//     allocation's memset. A zero word is foreign unless the reading allocation itself zeroed
//     these bytes last (then zero is the expected word and matches).
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

inline constexpr std::uint32_t kTagShift = 16;
inline constexpr std::uint32_t kLowMask = 0xFFFFu;

/// The tag of allocation number `serial` of a validate run (serials count allocations across all
/// trials of one device): 1..65535, never 0, so a patterned word is never 0. Serials 65535 apart
/// share a tag; a run stays below that (trials x buffers per trial), see HipDevice::tag_of_alloc.
ALLOCSIM_HD constexpr std::uint32_t allocation_tag(std::uint64_t serial) {
  return static_cast<std::uint32_t>(serial % kLowMask) + 1u;
}
ALLOCSIM_HD constexpr std::uint32_t tag_of_word(std::uint32_t word) { return word >> kTagShift; }

/// A patterned word: the allocation's tag above the low 16 bits of the (alloc, version) hash.
ALLOCSIM_HD constexpr std::uint32_t tagged_word(std::uint32_t tag, std::uint32_t key, std::uint64_t word_index) {
  return (tag << kTagShift) | (pattern_word(key, word_index) & kLowMask);
}

/// What a word written with `version` by allocation `alloc` (tag `tag`) must read back as.
ALLOCSIM_HD constexpr std::uint32_t expected_word(std::uint32_t tag, std::int32_t alloc, std::uint32_t version,
                                                  std::uint64_t word_index) {
  return version == kZeroVersion ? 0u : tagged_word(tag, pattern_key(alloc, version), word_index);
}

enum class WordCheck : std::uint8_t { Match, StaleOwn, Foreign };

/// Classify a word read by the allocation with tag `tag`, expecting `want`.
ALLOCSIM_HD constexpr WordCheck check_word(std::uint32_t got, std::uint32_t want, std::uint32_t tag) {
  if (got == want) return WordCheck::Match;
  if (got == 0) return WordCheck::Foreign;  // want != 0: the reader did not zero these bytes last
  return tag_of_word(got) == tag ? WordCheck::StaleOwn : WordCheck::Foreign;
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
