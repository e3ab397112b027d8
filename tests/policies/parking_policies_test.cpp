// Contracts of the policies that park chunks behind events: event-poll and timestamp-frontier.
#include <catch2/catch.hpp>

#include "drive.h"

using namespace allocsim;
using namespace allocsim::test;

TEST_CASE("event-poll records an event per touched stream and parks the chunk", "[event-poll]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0, 2}));
  CHECK(b.freed.empty());
  CHECK(b.count("record e0 on s0") == 1);
  CHECK(b.count("record e1 on s2") == 1);
  CHECK(b.count("query") == 0);  // nothing polls until an allocation

  before_alloc(*p, b);
  CHECK(b.freed.empty());
  b.done.insert(0);
  before_alloc(*p, b);
  CHECK(b.freed.empty());  // stream 2's event still pending
  b.done.insert(1);
  before_alloc(*p, b);
  REQUIRE(b.freed.size() == 1);
  CHECK(b.freed[0].second == 1);
  CHECK(b.count("destroy e0") == 1);
  CHECK(b.count("destroy e1") == 1);
  // Nothing outstanding: the next allocation does not poll at all.
  const int queries = b.count("query");
  before_alloc(*p, b);
  CHECK(b.count("query") == queries);
}

TEST_CASE("event-poll polls each stream FIFO and stops at the first pending event", "[event-poll]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0}));    // e0
  release(*p, b, buffer(2, 256, 256, {0}));  // e1
  release(*p, b, buffer(3, 512, 256, {1}));  // e2, another stream
  b.done = {1, 2};                           // e0 pending: e1 is not even asked
  before_alloc(*p, b);
  CHECK(b.count("query e0 pending") == 1);
  CHECK(b.count("query e1") == 0);
  CHECK(b.count("query e2 done") == 1);
  REQUIRE(b.freed.size() == 1);
  CHECK(b.freed[0].second == 3);
  b.done.insert(0);
  before_alloc(*p, b);
  REQUIRE(b.freed.size() == 3);
  CHECK(b.freed[1].second == 1);
  CHECK(b.freed[2].second == 2);
}

TEST_CASE("event-poll frees an untouched buffer at once", "[event-poll]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(9, 0, 256, {}));
  CHECK(b.log == std::vector<std::string>{"free b9"});
}

TEST_CASE("event-poll OOM: synchronize, free everything parked, retry once", "[event-poll][oom]") {
  FakeBackend b;
  auto p = policy("event-poll");
  release(*p, b, buffer(1, 0, 256, {0}));
  release(*p, b, buffer(2, 256, 256, {3}));
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
  release(*p, b, buffer(1, 0, 256, {0}));
  shutdown(*p, b);
  CHECK(b.count("WAIT_ALL") == 1);
  CHECK(b.was_freed(1));
}

TEST_CASE("timestamp-frontier returns chunks only once the frontier passes their stamp", "[timestamp-frontier]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0}));    // stamp 1, e0
  release(*p, b, buffer(2, 256, 256, {2}));  // stamp 2, e1 (another stream)
  release(*p, b, buffer(3, 512, 256, {0}));  // stamp 3, e2
  CHECK(b.freed.empty());

  b.done = {1};  // stamp 2 is done but stamp 1 is not: the frontier stays at 0
  before_alloc(*p, b);
  CHECK(b.freed.empty());
  CHECK(b.count("query e1") == 0);  // FIFO: polling stops at the first pending event

  b.done.insert(0);  // stamps 1 and 2 done: frontier 2
  before_alloc(*p, b);
  REQUIRE(b.freed.size() == 2);
  CHECK(b.freed[0].second == 1);
  CHECK(b.freed[1].second == 2);

  b.done.insert(2);
  before_alloc(*p, b);
  REQUIRE(b.freed.size() == 3);
  CHECK(b.freed[2].second == 3);
}

TEST_CASE("timestamp-frontier: a stamp with several events waits for all of them", "[timestamp-frontier]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0, 1}));  // stamp 1: e0 on s0, e1 on s1
  b.done = {0};
  before_alloc(*p, b);
  CHECK(b.freed.empty());
  b.done.insert(1);
  before_alloc(*p, b);
  CHECK(b.was_freed(1));
}

TEST_CASE("timestamp-frontier OOM waits on the oldest tracked event, then falls back to the default", "[timestamp-frontier][oom]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0}));    // e0
  release(*p, b, buffer(2, 256, 256, {0}));  // e1
  b.log.clear();
  CHECK(oom(*p, b, 0).retry);
  CHECK(b.log.front() == "WAIT_EVENT e0");
  REQUIRE(b.freed.size() == 1);  // e1 still pending: only stamp 1 returns
  CHECK(b.freed[0].second == 1);
  CHECK(oom(*p, b, 1).retry);
  CHECK(b.was_freed(2));
  // Nothing tracked any more: XLA AllocatorRetry (scratch fails fast).
  b.log.clear();
  CHECK(oom(*p, b, 2).retry);
  CHECK(b.log.front().rfind("WAIT_POOL_FREE", 0) == 0);
  CHECK_FALSE(oom(*p, b, 0, true).retry);
}

TEST_CASE("timestamp-frontier shutdown returns every parked chunk", "[timestamp-frontier]") {
  FakeBackend b;
  auto p = policy("timestamp-frontier");
  release(*p, b, buffer(1, 0, 256, {0}));
  release(*p, b, buffer(2, 256, 256, {1}));
  shutdown(*p, b);
  CHECK(b.was_freed(1));
  CHECK(b.was_freed(2));
}
