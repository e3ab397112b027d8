// RegionSubAllocator: the sim's addresses, bounded by one real allocation.
#include <catch2/catch.hpp>

#include "allocsim/hw/region_sub_allocator.h"
#include "allocsim/pool/bfc_pool.h"
#include "allocsim/pool/fake_sub_allocator.h"

using namespace allocsim;

TEST_CASE("region sub-allocator gives the FakeSubAllocator's addresses while they fit") {
  BfcOptions o;
  o.allow_growth = true;
  o.memory_limit = 64 << 20;
  hw::RegionSubAllocator region(o, 256 << 20);
  FakeSubAllocator fake(o, 0);
  for (std::uint64_t bytes : {2ull << 20, 4ull << 20, 3ull << 20, 8ull << 20}) {
    auto a = region.alloc(256, bytes);
    auto b = fake.alloc(256, bytes);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(*a == *b);
    CHECK(*a + bytes <= region.capacity());
  }
}

TEST_CASE("region sub-allocator refuses a region past the real allocation") {
  BfcOptions o;
  hw::RegionSubAllocator region(o, 6 << 20);
  REQUIRE(region.alloc(256, 4 << 20));
  CHECK_FALSE(region.alloc(256, 4 << 20));  // would end at 8 MiB > 6 MiB
  CHECK(region.refusals() == 1);
  CHECK(region.high_water() == (4u << 20));
}

TEST_CASE("BfcPool over a region gives the same addresses as over the fake sub-allocator") {
  BfcOptions o;
  o.allow_growth = false;
  o.memory_limit = 64 << 20;
  hw::RegionSubAllocator region(o, 64 << 20);
  FakeSubAllocator fake(o, 0);
  BfcPool hw_pool(o, region), sim_pool(o, fake);
  std::vector<std::uint64_t> sizes = {4 << 20, 4 << 20, 1000, 3 << 20, 4 << 20};
  std::vector<Addr> hw_live, sim_live;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto a = hw_pool.allocate(sizes[i]);
    auto b = sim_pool.allocate(sizes[i]);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(*a == *b);
    hw_live.push_back(*a);
    sim_live.push_back(*b);
    if (i == 2) {  // free the first: the next 4 MiB request must reuse it in both
      hw_pool.deallocate(hw_live[0]);
      sim_pool.deallocate(sim_live[0]);
    }
  }
  CHECK(hw_pool.stats().peak_bytes_in_use == sim_pool.stats().peak_bytes_in_use);
  CHECK(region.high_water() <= region.capacity());
}
