// Contracts of the policies modelled on PyTorch's and TensorFlow's allocators: event-poll (parks
// chunks behind record_stream uses) and timestamp-frontier (stamps chunks and holds other streams
// to a frontier). Both reuse on the releasing stream at once.
#include <catch2/catch.hpp>

#include "drive.h"

using namespace allocsim;
using namespace allocsim::test;

TEST_CASE("event-poll reuses a chunk used only on its allocation stream at once", "[event-poll]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0}));
  CHECK(b.was_freed(1));                   // back in the pool at release ...
  CHECK(b.count("record e0 on s0") == 1);  // ... remembered by a release event on its stream
  after_alloc(*p, b, buffer(2, 0, 256, {}, 0));
  CHECK(b.count("query") == 0);  // the same stream needs nothing: stream order
  CHECK(b.count("s0 waits") == 0);
}

TEST_CASE("event-poll: another stream that gets the bytes waits on the release event", "[event-poll]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0}));  // e0 on s0
  after_alloc(*p, b, buffer(2, 0, 256, {}, 1));
  CHECK(b.count("query e0 pending") == 1);
  CHECK(b.count("s1 waits e0") == 1);
}

TEST_CASE("event-poll parks a chunk with uses on other streams until a later allocation polls them done",
          "[event-poll]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0, 2}));  // allocated on s0, record_stream use on s2
  CHECK(b.freed.empty());
  CHECK(b.count("record e0 on s0") == 1);  // the release event
  CHECK(b.count("record e1 on s2") == 1);  // the record_stream use's event
  CHECK(b.count("query") == 0);            // nothing polls until an allocation

  before_alloc(*p, b);
  CHECK(b.count("query e1 pending") == 1);
  CHECK(b.freed.empty());
  b.done.insert(1);
  before_alloc(*p, b);
  REQUIRE(b.freed.size() == 1);
  CHECK(b.freed[0].second == 1);
  CHECK(b.count("destroy e1") == 1);
  // Nothing outstanding: the next allocation does not poll at all.
  const int queries = b.count("query");
  before_alloc(*p, b);
  CHECK(b.count("query") == queries);
}

TEST_CASE("event-poll polls each stream FIFO and stops at the first pending event", "[event-poll]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0, 1}));    // e0 release, e1 on s1
  release(*p, b, buffer(2, 256, 256, {0, 1}));  // e2 release, e3 on s1
  release(*p, b, buffer(3, 512, 256, {0, 2}));  // e4 release, e5 on s2
  b.done = {3, 5};                              // e1 pending: e3 is not even asked
  before_alloc(*p, b);
  CHECK(b.count("query e1 pending") == 1);
  CHECK(b.count("query e3") == 0);
  CHECK(b.count("query e5 done") == 1);
  REQUIRE(b.freed.size() == 1);
  CHECK(b.freed[0].second == 3);
  b.done.insert(1);
  before_alloc(*p, b);
  REQUIRE(b.freed.size() == 3);
  CHECK(b.freed[1].second == 1);
  CHECK(b.freed[2].second == 2);
}

TEST_CASE("event-poll OOM: synchronize, free everything parked, retry once", "[event-poll][oom]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0, 1}));
  release(*p, b, buffer(2, 256, 256, {0, 3}));
  CHECK(b.freed.empty());
  b.log.clear();
  CHECK(oom(*p, b, 0).retry);
  REQUIRE(!b.log.empty());
  CHECK(b.log.front() == "WAIT_ALL");
  REQUIRE(b.freed.size() == 2);
  CHECK(b.freed[0].second == 1);  // release order
  CHECK(b.freed[1].second == 2);
  CHECK_FALSE(oom(*p, b, 1).retry);  // once only
  // PyTorch does this inside the allocator, so scratch gets its one retry too.
  CHECK(oom(*p, b, 0, true).retry);
  CHECK_FALSE(oom(*p, b, 1, true).retry);
}

TEST_CASE("event-poll shutdown hands back everything parked after a device sync", "[event-poll]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0, 1}));
  shutdown(*p, b);
  CHECK(b.count("WAIT_ALL") == 1);
  CHECK(b.was_freed(1));
}

TEST_CASE("event-poll shutdown with nothing parked does not synchronize", "[event-poll]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0}));
  shutdown(*p, b);
  CHECK(b.count("WAIT_ALL") == 0);
  CHECK(b.count("destroy e0") == 1);  // the release event is let go
}

TEST_CASE("timestamp-frontier lets a same-stream allocation reuse at once", "[timestamp-frontier]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0}));  // stamp 1, e0 on s0
  CHECK(b.was_freed(1));                   // back in the pool at release
  before_alloc(*p, b, 0);
  after_alloc(*p, b, buffer(2, 0, 256, {}, 0));
  CHECK(b.count("s0 waits") == 0);
}

TEST_CASE("timestamp-frontier holds another stream's allocation until the frontier passes the stamp",
          "[timestamp-frontier]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0}));  // stamp 1, e0
  before_alloc(*p, b, 1);
  CHECK(b.count("query e0 pending") == 1);
  after_alloc(*p, b, buffer(2, 0, 256, {}, 1));
  CHECK(b.count("s1 waits e0") == 1);
  after_alloc(*p, b, buffer(3, 4096, 256, {}, 1));  // bytes of no stamped release: nothing
  CHECK(b.count("s1 waits") == 1);

  b.done.insert(0);  // the frontier passes stamp 1
  before_alloc(*p, b, 1);
  after_alloc(*p, b, buffer(4, 0, 256, {}, 1));
  CHECK(b.count("s1 waits") == 1);  // no new wait
}

TEST_CASE("timestamp-frontier's frontier is FIFO: a done stamp behind a pending one still holds",
          "[timestamp-frontier]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0}));    // stamp 1, e0
  release(*p, b, buffer(2, 256, 256, {0}));  // stamp 2, e1
  b.done = {1};
  before_alloc(*p, b, 1);
  CHECK(b.count("query e0 pending") == 1);
  CHECK(b.count("query e1") == 0);  // polling stops at the first pending event
  after_alloc(*p, b, buffer(3, 256, 256, {}, 1));
  CHECK(b.count("s1 waits e1") == 1);  // conservative: stamp 2 is past the frontier
}

TEST_CASE("timestamp-frontier waits only on the release's events on other streams", "[timestamp-frontier]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0, 1}));  // stamp 1: e0 on s0, e1 on s1
  after_alloc(*p, b, buffer(2, 0, 256, {}, 1));
  CHECK(b.count("s1 waits e0") == 1);
  CHECK(b.count("s1 waits e1") == 0);  // its own stream: stream order
}

TEST_CASE("timestamp-frontier OOM is the default: nothing is withheld from the pool", "[timestamp-frontier][oom]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0}));
  b.log.clear();
  CHECK(oom(*p, b, 0).retry);
  CHECK(b.log.front().rfind("WAIT_POOL_FREE", 0) == 0);
  CHECK_FALSE(oom(*p, b, 0, true).retry);  // scratch fails fast
}

TEST_CASE("timestamp-frontier shutdown lets go of every tracked event", "[timestamp-frontier]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0}));
  release(*p, b, buffer(2, 256, 256, {1}, 1));
  shutdown(*p, b);
  CHECK(b.count("destroy e0") == 1);
  CHECK(b.count("destroy e1") == 1);
  CHECK(b.count("WAIT_ALL") == 0);
}
