// Pattern arithmetic and the per-allocation version map.
#include <catch2/catch.hpp>

#include <set>

#include "allocsim/hw/pattern.h"
#include "allocsim/hw/version_map.h"

using namespace allocsim::hw;

TEST_CASE("pattern words are never zero and differ across allocations and versions") {
  std::set<std::uint32_t> keys;
  for (int alloc = 0; alloc < 50; ++alloc)
    for (std::uint32_t v = 1; v < 20; ++v) keys.insert(pattern_key(alloc, v));
  CHECK(keys.size() == 50 * 19);  // no two (alloc, version) share a key
  int same = 0;
  for (std::uint64_t w = 0; w < 100000; ++w) {
    CHECK(pattern_word(pattern_key(3, 1), w) != 0);
    same += pattern_word(pattern_key(3, 1), w) == pattern_word(pattern_key(4, 1), w);
  }
  CHECK(same < 5);  // ~2^-32 per word by chance
}

TEST_CASE("a memset version expects zeros") {
  CHECK(expected_word(5, 7, kZeroVersion, 12) == 0u);
  CHECK(expected_word(5, 7, 1, 12) == tagged_word(5, pattern_key(7, 1), 12));
}

TEST_CASE("allocation tags are 1..65535, never 0, and distinct for 65535 consecutive serials") {
  std::set<std::uint32_t> tags;
  for (std::uint64_t serial = 0; serial < 65535; ++serial) {
    std::uint32_t t = allocation_tag(serial);
    REQUIRE(t >= 1u);
    REQUIRE(t <= 0xFFFFu);
    tags.insert(t);
  }
  CHECK(tags.size() == 65535);
  CHECK(allocation_tag(65535) == allocation_tag(0));  // the documented wrap
}

TEST_CASE("a tagged word carries its allocation's tag in the high 16 bits and is never zero") {
  for (std::uint32_t tag : {1u, 2u, 300u, 0xFFFFu})
    for (std::uint64_t w = 0; w < 5000; ++w) {
      const std::uint32_t word = tagged_word(tag, pattern_key(9, 4), w);
      REQUIRE(tag_of_word(word) == tag);
      REQUIRE(word != 0u);
    }
}

TEST_CASE("check_word: own older version is stale, another allocation's word or zero is foreign") {
  const std::uint32_t reader = allocation_tag(10), other = allocation_tag(11);
  const std::int32_t alloc = 10;
  int stale_seen = 0;
  for (std::uint64_t w = 0; w < 2000; ++w) {
    const std::uint32_t want = expected_word(reader, alloc, 3, w);
    CHECK(check_word(want, want, reader) == WordCheck::Match);
    // An older version of the same allocation (the autotune candidates reading W mid-update).
    const std::uint32_t older = expected_word(reader, alloc, 2, w);
    if (older != want) {
      ++stale_seen;
      CHECK(check_word(older, want, reader) == WordCheck::StaleOwn);
    }
    // Another allocation's data: foreign, whatever its version.
    CHECK(check_word(expected_word(other, 11, 1, w), want, reader) == WordCheck::Foreign);
    // Another allocation's memset: zero where we expect our pattern.
    CHECK(check_word(0u, want, reader) == WordCheck::Foreign);
  }
  CHECK(stale_seen > 1900);  // low 16 bits collide for ~1/65536 of the words only
}

TEST_CASE("check_word when the reader zeroed the bytes itself last") {
  const std::uint32_t reader = allocation_tag(4), other = allocation_tag(5);
  const std::uint32_t want = expected_word(reader, 4, kZeroVersion, 7);
  REQUIRE(want == 0u);
  CHECK(check_word(0u, want, reader) == WordCheck::Match);  // its own zeroing
  // Its own earlier pattern not yet zeroed: stale; another allocation's pattern: foreign.
  CHECK(check_word(expected_word(reader, 4, 1, 7), want, reader) == WordCheck::StaleOwn);
  CHECK(check_word(expected_word(other, 5, 1, 7), want, reader) == WordCheck::Foreign);
}

TEST_CASE("words_in keeps only whole 32-bit words") {
  CHECK(words_in(0, 16).first == 0);
  CHECK(words_in(0, 16).count == 4);
  CHECK(words_in(1, 16).first == 1);
  CHECK(words_in(1, 16).count == 3);  // bytes 1..16: whole words 4..15
  CHECK(words_in(2, 1).count == 0);
}

TEST_CASE("version map splits reads by the version last written") {
  VersionMap m;
  CHECK(m.read(0, 100).empty());  // unwritten: nothing to check
  auto v1 = m.next_version(), v2 = m.next_version();
  m.write(0, 100, v1);
  m.write(40, 20, v2);
  auto segs = m.read(0, 100);
  REQUIRE(segs.size() == 3);
  CHECK(segs[0].offset == 0);
  CHECK(segs[0].bytes == 40);
  CHECK(segs[0].version == v1);
  CHECK(segs[1].offset == 40);
  CHECK(segs[1].bytes == 20);
  CHECK(segs[1].version == v2);
  CHECK(segs[2].offset == 60);
  CHECK(segs[2].bytes == 40);
  CHECK(segs[2].version == v1);
  m.write(0, 100, kZeroVersion);
  segs = m.read(10, 10);
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].version == kZeroVersion);
}

TEST_CASE("version map property: a read returns the last write covering each byte") {
  VersionMap m;
  std::vector<std::uint32_t> shadow(512, 0);
  std::uint64_t x = 12345;
  auto rnd = [&] { x = x * 6364136223846793005ULL + 1442695040888963407ULL; return x >> 33; };
  for (int i = 0; i < 300; ++i) {
    std::uint64_t off = rnd() % 512, len = 1 + rnd() % (512 - off);
    std::uint32_t v = m.next_version();
    m.write(off, len, v);
    for (std::uint64_t b = off; b < off + len; ++b) shadow[b] = v;
    std::uint64_t roff = rnd() % 512, rlen = 1 + rnd() % (512 - roff);
    std::vector<std::uint32_t> seen(512, 0);
    std::uint64_t prev_end = roff;
    for (const VersionSegment& s : m.read(roff, rlen)) {
      CHECK(s.offset >= prev_end);
      prev_end = s.offset + s.bytes;
      for (std::uint64_t b = s.offset; b < s.offset + s.bytes; ++b) seen[b] = s.version;
    }
    for (std::uint64_t b = roff; b < roff + rlen; ++b) REQUIRE(seen[b] == shadow[b]);
  }
}
