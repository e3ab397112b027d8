// The device-pool layer both backends use (pool/device_pool.h, device_pools.h): the simulator's
// pools and the HIP backend's pools, bounded by their real device allocation, must give
// the same addresses and peaks for the same calls while everything fits, and both must place
// regions exactly as the oracle harness's fake does, garbage collection included.
#include <catch2/catch.hpp>
#include <optional>
#include <vector>

#include "allocsim/pool/device_pools.h"
#include "allocsim/pool/fake_sub_allocator.h"

using namespace allocsim;

namespace {
constexpr std::uint64_t MiB = 1024 * 1024;

DeviceSpec growth_gc_spec() {
  DeviceSpec spec;
  spec.memory_limit = 64 * MiB;
  spec.allow_growth = true;
  spec.garbage_collection = true;
  spec.private_pool_limit = 32 * MiB;
  return spec;
}

/// What one pool call returned, and the pools' totals after it.
struct Outcome {
  std::optional<Addr> addr;
  std::uint64_t in_use, pool_bytes;
  bool operator==(const Outcome&) const = default;
};

/// A fixed mixed sequence over both pools: growth, reuse after free, a request that needs
/// garbage collection, and an OOM.
std::vector<Outcome> run_sequence(DevicePools& pools) {
  std::vector<Outcome> out;
  std::vector<std::pair<PoolId, Addr>> live;
  auto alloc = [&](PoolId p, std::uint64_t bytes) {
    std::optional<Addr> a = pools.get(p)->bfc().allocate(bytes);
    if (a) live.emplace_back(p, *a);
    out.push_back({a, pools.bytes_in_use(), pools.pool_bytes()});
  };
  auto free_at = [&](std::size_t i) {
    pools.get(live[i].first)->bfc().deallocate(live[i].second);
    out.push_back({std::nullopt, pools.bytes_in_use(), pools.pool_bytes()});
  };
  for (int i = 0; i < 6; ++i) alloc(kSharedPool, 3 * MiB);
  alloc(kPrivatePool, 5 * MiB);
  alloc(kPrivatePool, 1000);
  for (std::size_t i = 1; i < 6; ++i) free_at(i);
  alloc(kSharedPool, 40 * MiB);  // needs the free regions back: garbage collection, then growth
  alloc(kSharedPool, 3 * MiB);
  alloc(kSharedPool, 64 * MiB);  // over the limit: OOM
  alloc(kPrivatePool, 20 * MiB);
  return out;
}
}  // namespace

TEST_CASE(
    "device pools: hw (bounded by the device allocation) and sim give the same addresses and totals while it "
    "fits",
    "[bfc][device-pools]") {
  const DeviceSpec spec = growth_gc_spec();
  DevicePools sim(spec, /*bounded=*/false), hw(spec, /*bounded=*/true);
  const std::vector<Outcome> a = run_sequence(sim), b = run_sequence(hw);
  CHECK(a == b);
  CHECK(hw.get(kSharedPool)->bound_refusals() == 0);
  CHECK(hw.get(kPrivatePool)->bound_refusals() == 0);
  // The sequence really exercised what it claims: an OOM, and a collected-then-regrown pool.
  CHECK_FALSE(a[a.size() - 2].addr.has_value());
  CHECK(sim.get(kSharedPool)->bfc().stats().peak_pool_bytes == 64 * MiB);
}

TEST_CASE("device pools: the shared and private pools' addresses never overlap", "[bfc][device-pools]") {
  DevicePools pools(growth_gc_spec(), false);
  const Addr shared = *pools.get(kSharedPool)->bfc().allocate(MiB);
  const Addr priv = *pools.get(kPrivatePool)->bfc().allocate(MiB);
  CHECK(shared == DevicePool::base(kSharedPool));
  CHECK(priv == DevicePool::base(kPrivatePool));
}

TEST_CASE("device pools: a pool never places a region past its address span", "[bfc][device-pools]") {
  // The simulator's pools are bounded only by their span; a limit larger than it cannot spill
  // into the next pool's addresses: the region is refused (and the pool backs off inside it).
  DeviceSpec spec;
  spec.memory_limit = DevicePool::kAddressSpan + 64 * MiB;
  DevicePools pools(spec, false);
  DevicePool& shared = *pools.get(kSharedPool);
  const std::optional<Addr> a = shared.bfc().allocate(MiB);
  REQUIRE(a);
  CHECK(shared.bound_refusals() > 0);
  shared.bfc().for_each_region(
      [&](Addr begin, std::uint64_t bytes) { CHECK(begin + bytes <= DevicePool::base(kPrivatePool)); });
}

TEST_CASE("device pools: a destroyed pool stays dead and leaves the totals", "[bfc][device-pools]") {
  DevicePools pools(growth_gc_spec(), false);
  REQUIRE(pools.get(kPrivatePool)->bfc().allocate(MiB));
  REQUIRE(pools.get(kSharedPool)->bfc().allocate(MiB));
  CHECK(pools.pool_bytes() == 4 * MiB);
  CHECK(pools.destroy(kPrivatePool));
  CHECK_FALSE(pools.destroy(kPrivatePool));
  CHECK_FALSE(pools.alive(kPrivatePool));
  CHECK(pools.get(kPrivatePool) == nullptr);
  CHECK(pools.pool_bytes() == 2 * MiB);
  CHECK(pools.bytes_in_use() == MiB);
  CHECK_FALSE(pools.alive(7));
  CHECK(pools.get(7) == nullptr);
}

TEST_CASE("device pools: garbage collection then growth places regions as the oracle's fake does",
          "[bfc][device-pools]") {
  // tests/data/tsl_bfc/traces/edge_gc_on.trace and its expected output: the collected
  // regions' addresses are not reused; the new 62 MiB region starts past the last old one.
  for (bool bounded : {false, true}) {
    INFO("bounded: " << bounded);
    DeviceSpec spec = growth_gc_spec();
    DevicePools pools(spec, bounded);
    BfcPool& pool = pools.get(kSharedPool)->bfc();
    std::vector<Addr> a;
    for (int i = 0; i < 12; ++i) a.push_back(*pool.allocate(1572864));
    CHECK(a[11] == 19398656);
    for (int i = 1; i < 12; ++i) pool.deallocate(a[std::size_t(i)]);
    CHECK(*pool.allocate(41943040) == 31457280);
    CHECK_FALSE(pool.allocate(31457280));
    std::vector<std::pair<Addr, std::uint64_t>> regions;
    pool.for_each_region([&](Addr begin, std::uint64_t bytes) { regions.emplace_back(begin, bytes); });
    CHECK(regions == std::vector<std::pair<Addr, std::uint64_t>>{{0, 2097152}, {31457280, 65011712}});
  }
}

TEST_CASE("placement bound: a refused region moves nothing, so the back-off lands where it would have",
          "[bfc][device-pools]") {
  BfcOptions o;
  FakeSubAllocator fake(o);
  fake.set_address_bound(6 * MiB);
  CHECK(*fake.alloc(256, 4 * MiB) == 0);
  CHECK_FALSE(fake.alloc(256, 4 * MiB));  // would end at 8 MiB
  CHECK(fake.refusals() == 1);
  CHECK(fake.bytes_held() == 4 * MiB);
  CHECK(*fake.alloc(256, MiB) == 4 * MiB);  // the next 2 MiB boundary, as if nothing was refused
}

TEST_CASE("placement bound: the pool's x0.9 back-off fits a region under the device allocation's end",
          "[bfc][device-pools]") {
  BfcOptions o;
  o.memory_limit = 64 * MiB;
  o.allow_growth = false;
  FakeSubAllocator fake(o);
  fake.set_address_bound(60 * MiB);  // the 64 MiB region does not fit, 0.9 x 64 MiB does
  BfcPool pool(o, fake);
  REQUIRE(pool.allocate(MiB));
  CHECK(fake.refusals() == 1);
  CHECK(pool.stats().pool_bytes == 60398080);  // 0.9f x 64 MiB rounded up to 256 B (TSL's back-off)
}
