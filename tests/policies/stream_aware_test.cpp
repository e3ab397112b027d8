// Contract of stream-aware: free at once, remember (range, stream, event); a different stream that
// gets overlapping bytes waits on the event unless it is known complete; the same stream reuses
// at once.
#include <catch2/catch.hpp>

#include "drive.h"

using namespace allocsim;
using namespace allocsim::test;

TEST_CASE("stream-aware frees at release and records an event per stream", "[stream-aware]") {
  FakeBackend b;
  auto p = policy("stream-aware");
  release(*p, b, buffer(1, 0x1000, 512, {0, 2}, /*alloc_stream=*/0));
  CHECK(b.was_freed(1));
  CHECK(b.count("record e0 on s0") == 1);
  CHECK(b.count("record e1 on s2") == 1);
  CHECK(b.count("record") == 2);  // alloc stream 0 already among the users
}

TEST_CASE("stream-aware: same stream reuses at once, no query, no wait", "[stream-aware]") {
  FakeBackend b;
  auto p = policy("stream-aware");
  release(*p, b, buffer(1, 0x1000, 512, {0}));
  b.log.clear();
  after_alloc(*p, b, buffer(2, 0x1000, 512, {}, /*alloc_stream=*/0));
  CHECK(b.log == std::vector<std::string>{"destroy e0"});  // forgotten: the new owner is stream-ordered
}

TEST_CASE("stream-aware: another stream waits on the pending release event", "[stream-aware]") {
  FakeBackend b;
  auto p = policy("stream-aware");
  release(*p, b, buffer(1, 0x1000, 512, {0}));  // e0 on compute
  b.log.clear();
  after_alloc(*p, b, buffer(2, 0x1100, 256, {}, /*alloc_stream=*/4));  // overlaps the tail
  CHECK(b.log == std::vector<std::string>{"query e0 pending", "s4 waits e0"});
  // Partly covered: the record stays for the rest of its range.
  b.log.clear();
  after_alloc(*p, b, buffer(3, 0x1000, 256, {}, /*alloc_stream=*/5));
  CHECK(b.log == std::vector<std::string>{"query e0 pending", "s5 waits e0"});
}

TEST_CASE("stream-aware: an event known complete is dropped, no wait", "[stream-aware]") {
  FakeBackend b;
  auto p = policy("stream-aware");
  release(*p, b, buffer(1, 0x1000, 512, {0}));
  b.done = {0};
  b.log.clear();
  after_alloc(*p, b, buffer(2, 0x1000, 256, {}, 4));
  CHECK(b.log == std::vector<std::string>{"query e0 done", "destroy e0"});
  b.log.clear();
  after_alloc(*p, b, buffer(3, 0x1100, 256, {}, 4));  // the rest of the range: forgotten too
  CHECK(b.log.empty());
}

TEST_CASE("stream-aware: a wholly covered record passes to the new buffer", "[stream-aware]") {
  FakeBackend b;
  auto p = policy("stream-aware");
  release(*p, b, buffer(1, 0x1000, 256, {0}));
  after_alloc(*p, b, buffer(2, 0x1000, 512, {}, 4));  // covers it: wait, then forget
  CHECK(b.count("s4 waits e0") == 1);
  CHECK(b.count("destroy e0") == 1);
  // The new buffer's release records on its allocation stream even if unused, so a later third
  // stream is still ordered (transitively) after the first use.
  release(*p, b, buffer(2, 0x1000, 512, {}, 4));
  b.log.clear();
  after_alloc(*p, b, buffer(3, 0x1000, 512, {}, 6));
  CHECK(b.log == std::vector<std::string>{"query e1 pending", "s6 waits e1", "destroy e1"});
  CHECK(b.last_event_on(4) == 1);
}

TEST_CASE("stream-aware ignores other pools and disjoint ranges", "[stream-aware]") {
  FakeBackend b;
  auto p = policy("stream-aware");
  release(*p, b, buffer(1, 0x1000, 256, {0}));
  b.log.clear();
  after_alloc(*p, b, buffer(2, 0x1000, 256, {}, 4, kPrivatePool));
  after_alloc(*p, b, buffer(3, 0x1100, 256, {}, 4));  // adjacent, not overlapping
  after_alloc(*p, b, buffer(4, 0x0f00, 256, {}, 4));
  CHECK(b.log.empty());
}

TEST_CASE("stream-aware waits for every other stream that touched the bytes", "[stream-aware]") {
  FakeBackend b;
  auto p = policy("stream-aware");
  release(*p, b, buffer(1, 0, 256, {0, 2}, 0));  // e0 on s0, e1 on s2
  b.log.clear();
  after_alloc(*p, b, buffer(2, 0, 256, {}, 2));  // s2 reuses: waits on compute's event only
  CHECK(b.log == std::vector<std::string>{"query e0 pending", "s2 waits e0", "destroy e0", "destroy e1"});
}
