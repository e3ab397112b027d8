// Contracts of the policies without parking state: immediate, deferred-callback, host-sync, and
// the default OOM behaviour (oom_default.cpp) they share.
#include <catch2/catch.hpp>

#include "drive.h"

using namespace allocsim;
using namespace allocsim::test;

TEST_CASE("immediate frees a buffer used only on compute at release, with no device interaction", "[immediate]") {
  FakeBackend b;
  auto p = policy("immediate");
  release(*p, b, buffer(3, 0x1000, 512, {0}));
  REQUIRE(b.freed.size() == 1);
  CHECK(b.freed[0].second == 3);
  CHECK(b.freed[0].first.addr == 0x1000);
  CHECK(b.freed[0].first.bytes == 512);
  CHECK(b.log == std::vector<std::string>{"free b3"});  // no event, no wait, no callback
}

TEST_CASE("immediate holds a buffer used on another stream until a callback after that use", "[immediate]") {
  FakeBackend b;
  auto p = policy("immediate");
  release(*p, b, buffer(3, 0x1000, 512, {0, 2}));  // allocated on compute, used on compute and s2
  CHECK(b.freed.empty());                  // not at release ...
  CHECK(b.count("record e0 on s2") == 1);  // ... but after s2's work so far ...
  CHECK(b.count("s102 waits e0") == 1);
  CHECK(b.count("callback on s102") == 1);  // ... on the callback thread
  CHECK(b.count("record e0 on s0") == 0);   // the compute use holds nothing
  b.run_callbacks();
  REQUIRE(b.freed.size() == 1);
  CHECK(b.freed[0].second == 3);
}

TEST_CASE("immediate's free waits for every non-compute stream that used the buffer", "[immediate]") {
  FakeBackend b;
  auto p = policy("immediate");
  release(*p, b, buffer(3, 0, 512, {0, 2, 3}));
  CHECK(b.count("record e0 on s3") == 1);  // the second held stream ...
  CHECK(b.count("s102 waits e0") == 1);    // ... orders the first one's callback stream
  CHECK(b.count("record e1 on s2") == 1);
  CHECK(b.count("s102 waits e1") == 1);
  CHECK(b.count("callback on s102") == 1);
  CHECK(b.freed.empty());
  b.run_callbacks();
  CHECK(b.was_freed(3));
}

TEST_CASE("immediate frees a non-compute stream's own allocation at release", "[immediate]") {
  // Autotuner scratch: upstream returns it to the allocator directly; its owner orders it.
  FakeBackend b;
  auto p = policy("immediate");
  release(*p, b, buffer(4, 0, 512, {1}, /*alloc_stream=*/1));
  CHECK(b.log == std::vector<std::string>{"free b4"});
}

TEST_CASE("immediate falls back to a free at once when the hold's callback cannot be enqueued", "[immediate]") {
  FakeBackend b;
  b.fail_callbacks = true;
  auto p = policy("immediate");
  release(*p, b, buffer(5, 0, 512, {0, 2}));
  CHECK(b.was_freed(5));
  CHECK(b.fallbacks == 1);
  REQUIRE(b.warnings.size() == 1);
  CHECK(b.warnings[0].rfind("immediate: callback enqueue failed (", 0) == 0);
}

TEST_CASE("deferred-callback frees only when the callback runs, after the last-use stream", "[deferred-callback]") {
  FakeBackend b;
  auto p = policy("deferred-callback");
  release(*p, b, buffer(1, 0, 256, {0, 2}));  // last use on stream 2
  CHECK(b.freed.empty());
  CHECK(b.count("record e0 on s2") == 1);  // event on the last-use stream ...
  CHECK(b.count("s102 waits e0") == 1);     // ... waited on by its callback stream ...
  CHECK(b.count("callback on s102") == 1);  // ... which hands the free to the callback thread
  CHECK(b.pending_callbacks() == 1);
  b.run_callbacks();
  REQUIRE(b.freed.size() == 1);
  CHECK(b.freed[0].second == 1);
  CHECK(b.fallbacks == 0);
  CHECK(b.warnings.empty());
}

TEST_CASE("deferred-callback defers an untouched buffer on compute", "[deferred-callback]") {
  FakeBackend b;
  auto p = policy("deferred-callback");
  release(*p, b, buffer(1, 0, 256, {}));
  CHECK(b.count("record e0 on s0") == 1);
  CHECK(b.count("callback on s100") == 1);
  CHECK(b.freed.empty());
}

TEST_CASE("deferred-callback falls back to an immediate free when the enqueue fails", "[deferred-callback]") {
  FakeBackend b;
  b.fail_callbacks = true;
  auto p = policy("deferred-callback");
  release(*p, b, buffer(4, 0, 256, {0}));
  release(*p, b, buffer(5, 256, 256, {0}));
  CHECK(b.fallbacks == 2);
  REQUIRE(b.freed.size() == 2);  // freed at once, in release order
  CHECK(b.freed[0].second == 4);
  CHECK(b.freed[1].second == 5);
  CHECK(b.pending_callbacks() == 0);
  REQUIRE(b.warnings.size() == 2);
  CHECK(b.warnings[0].rfind("deferred-callback: callback enqueue failed (", 0) == 0);
  CHECK(b.warnings[0].find("); freed immediately") != std::string::npos);
  CHECK(b.warnings[0] == b.warnings[1]);  // same text, so the backend logs it once per run
}

TEST_CASE("host-sync waits for every stream that touched the buffer, then frees", "[host-sync]") {
  FakeBackend b;
  auto p = policy("host-sync");
  release(*p, b, buffer(7, 0, 256, {0, 3}));
  CHECK(b.log == std::vector<std::string>{"WAIT_STREAM s0", "WAIT_STREAM s3", "free b7"});
}

TEST_CASE("host-sync frees an untouched buffer without waiting", "[host-sync]") {
  FakeBackend b;
  auto p = policy("host-sync");
  release(*p, b, buffer(7, 0, 256, {}));
  CHECK(b.log == std::vector<std::string>{"free b7"});
}

TEST_CASE("default OOM: XLA AllocatorRetry waits for a free until the timeout, scratch fails fast", "[oom]") {
  FakeBackend b;
  auto p = policy("immediate");
  SECTION("non-scratch retries, woken by the next pool free, deadline 10 s after the first failure") {
    b.now_ns = 5'000;
    CHECK(oom(*p, b, 0, false, 1'000).retry);
    CHECK(b.log == std::vector<std::string>{"WAIT_POOL_FREE pool0 until 10000001000"});
  }
  SECTION("past the deadline the failure is final") {
    b.now_ns = 10'000'001'000;
    CHECK_FALSE(oom(*p, b, 7, false, 1'000).retry);
  }
  SECTION("oom_retry_timeout_ns shortens the wait") {
    b.param_values.set("oom_retry_timeout_ns", 2'000);
    CHECK(oom(*p, b, 0, false, 1'000).retry);
    CHECK(b.log == std::vector<std::string>{"WAIT_POOL_FREE pool0 until 3000"});
    b.now_ns = 3'000;
    CHECK_FALSE(oom(*p, b, 1, false, 1'000).retry);
  }
  SECTION("autotuner scratch does not retry") {
    CHECK_FALSE(oom(*p, b, 0, true, 0).retry);
  }
}
