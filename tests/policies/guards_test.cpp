// Guards: what a non-compute stream does around an allocation.
#include <catch2/catch.hpp>

#include "drive.h"

using namespace allocsim;
using namespace allocsim::test;

namespace {
std::unique_ptr<Guard> guard(std::string_view name) {
  auto g = make_guard(name, Params{});
  REQUIRE(g);
  return g;
}
void run_guard(Guard& g, FakeBackend& b, const BufferInfo& buf) {
  Plan before, after;
  g.before_allocate(b, buf.alloc_stream, before);
  b.execute(std::move(before));
  b.log.push_back("ALLOCATE");
  g.after_allocate(b, buf, after);
  b.execute(std::move(after));
}
}  // namespace

TEST_CASE("guard none does nothing and uses the shared pool", "[guard]") {
  FakeBackend b;
  auto g = guard("none");
  run_guard(*g, b, buffer(1, 0, 256, {}, 2));
  CHECK(b.log == std::vector<std::string>{"ALLOCATE"});
  CHECK(g->pool_for(2) == kSharedPool);
}

TEST_CASE("guard wait-compute: the allocating stream waits on an event recorded on compute", "[guard]") {
  FakeBackend b;
  auto g = guard("wait-compute");
  run_guard(*g, b, buffer(1, 0, 256, {}, 2));
  CHECK(b.log == std::vector<std::string>{"ALLOCATE", "create e0", "record e0 on s0", "s2 waits e0", "destroy e0"});
  CHECK(g->pool_for(2) == kSharedPool);
  b.log.clear();
  run_guard(*g, b, buffer(2, 0, 256, {}, 0));  // compute itself: nothing
  CHECK(b.log == std::vector<std::string>{"ALLOCATE"});
}

TEST_CASE("guard device-sync: the host drains the device before allocating", "[guard]") {
  FakeBackend b;
  auto g = guard("device-sync");
  run_guard(*g, b, buffer(1, 0, 256, {}, 2));
  CHECK(b.log == std::vector<std::string>{"WAIT_ALL", "ALLOCATE"});
}

TEST_CASE("guard private-pool: non-compute streams get the private pool", "[guard]") {
  FakeBackend b;
  auto g = guard("private-pool");
  CHECK(g->pool_for(0) == kSharedPool);
  CHECK(g->pool_for(1) == kPrivatePool);
  CHECK(g->pool_for(5) == kPrivatePool);
  run_guard(*g, b, buffer(1, 0, 256, {}, 2, kPrivatePool));
  CHECK(b.log == std::vector<std::string>{"ALLOCATE"});
}
