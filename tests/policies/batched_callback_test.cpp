// Contract of batched-callback: collect frees; one deferred-free callback per execution
// (batch_size = 0) or per K frees; flush at shutdown and on OOM; fallback like deferred-callback.
#include <catch2/catch.hpp>

#include "drive.h"

using namespace allocsim;
using namespace allocsim::test;

TEST_CASE("batched-callback: one callback per execution frees the whole batch", "[batched-callback]") {
  FakeBackend b;
  auto p = policy("batched-callback");
  for (BufferId i = 0; i < 5; ++i) release(*p, b, buffer(i, 256 * Addr(i), 256, {0}));
  CHECK(b.count("callback") == 0);
  CHECK(b.freed.empty());
  end_execution(*p, b);
  CHECK(b.count("callback on s100") == 1);
  CHECK(b.freed.empty());  // only when the callback runs
  b.run_callbacks();
  REQUIRE(b.freed.size() == 5);
  for (BufferId i = 0; i < 5; ++i) CHECK(b.freed[std::size_t(i)].second == i);
  end_execution(*p, b);  // empty batch: no callback
  CHECK(b.count("callback") == 1);
}

TEST_CASE("batched-callback: one callback per last-use stream in a batch", "[batched-callback]") {
  FakeBackend b;
  auto p = policy("batched-callback");
  release(*p, b, buffer(1, 0, 256, {0}));
  release(*p, b, buffer(2, 256, 256, {3}));
  release(*p, b, buffer(3, 512, 256, {0}));
  end_execution(*p, b);
  CHECK(b.count("callback on s100") == 1);
  CHECK(b.count("callback on s103") == 1);
}

TEST_CASE("batched-callback with batch_size K flushes every K frees", "[batched-callback]") {
  Params params;
  params.set("batch_size", 3);
  FakeBackend b;
  auto p = policy("batched-callback", params);
  for (BufferId i = 0; i < 7; ++i) release(*p, b, buffer(i, 256 * Addr(i), 256, {0}));
  CHECK(b.count("callback") == 2);  // after frees 3 and 6
  end_execution(*p, b);             // K > 0: executions do not flush
  CHECK(b.count("callback") == 2);
  b.run_callbacks();
  CHECK(b.freed.size() == 6);
  shutdown(*p, b);  // the leftover one
  CHECK(b.count("callback") == 3);
  b.run_callbacks();
  CHECK(b.freed.size() == 7);
}

TEST_CASE("batched-callback flushes on OOM before waiting for frees", "[batched-callback][oom]") {
  FakeBackend b;
  auto p = policy("batched-callback");
  release(*p, b, buffer(1, 0, 256, {0}));
  b.log.clear();
  CHECK(oom(*p, b, 0).retry);
  REQUIRE(b.log.size() >= 2);
  CHECK(b.count("callback on s100") == 1);
  CHECK(b.log.back().rfind("WAIT_POOL_FREE", 0) == 0);
}

TEST_CASE("batched-callback falls back to freeing the batch at once", "[batched-callback]") {
  FakeBackend b;
  b.fail_callbacks = true;
  auto p = policy("batched-callback");
  release(*p, b, buffer(1, 0, 256, {0}));
  release(*p, b, buffer(2, 256, 256, {0}));
  end_execution(*p, b);
  CHECK(b.fallbacks == 1);  // one failed enqueue
  CHECK(b.freed.size() == 2);
  REQUIRE(b.warnings.size() == 1);
  CHECK(b.warnings[0].rfind("batched-callback: callback enqueue failed (", 0) == 0);
}
