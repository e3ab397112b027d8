// The reader and the check on hand-made XSpaces (xspace_builder.h): order across threads, growing
// pools with unrelated region addresses, a mismatch reported at the right event, bad input.
#include <catch2/catch.hpp>
#include <limits>

#include "allocsim/scenarios/xla_check.h"
#include "allocsim/scenarios/xla_profile.h"
#include "xspace_builder.h"

using allocsim::Addr;
using allocsim::BfcOptions;
using allocsim::test::Recorder;
using allocsim::xla::ProfileError;

namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20;
constexpr Addr kBase = 0x7f0000000000;

BfcOptions preallocating() {
  BfcOptions o;
  o.memory_limit = 1024 * MiB;
  o.allow_growth = false;
  return o;
}

// Four calls: the callback thread frees the first buffer between two allocations on the main
// thread, and the last allocation takes the freed chunk. The callback thread's line comes after
// the main thread's in the file, so only time order puts the free before the reuse.
Recorder reuse_across_threads() {
  Recorder rec(preallocating(), {kBase});
  const Addr a = rec.alloc(1000);
  rec.alloc(5000);
  rec.free(a, 1);
  rec.alloc(900);
  return rec;
}

allocsim::xla::Profile parse(const Recorder& rec,
                             std::string_view allocator = allocsim::xla::kDefaultAllocator) {
  return allocsim::xla::parse_profile(rec.xspace(), "handmade.xplane.pb", allocator);
}

}  // namespace

TEST_CASE("hand-made: events are read in time order across threads, with spans and device ops", "[xla]") {
  const Recorder rec = reuse_across_threads();
  const allocsim::xla::Profile p = parse(rec);
  REQUIRE(p.events.size() == 4);
  CHECK(p.allocs == 3);
  CHECK(p.frees == 1);
  CHECK(p.events[2].kind == allocsim::xla::AllocatorEvent::Kind::kFree);
  CHECK(p.threads[p.events[2].thread] == "py_xla_callback/1");
  CHECK(p.events[3].addr == rec.records[0].addr);
  REQUIRE(p.executes.size() == 1);
  CHECK(p.executes[0].program == "jit_step");
  CHECK(p.threads[p.executes[0].thread] == "python3");
  REQUIRE(p.device_ops.size() == 1);
  CHECK(p.streams[p.device_ops[0].stream] == "Stream #14(Compute)");
  CHECK(p.op_names[p.device_ops[0].name] == "fusion_kernel");
  CHECK(p.device_ops[0].duration_ps == 11);

  const allocsim::xla::CheckResult r = allocsim::xla::check_profile(p);
  CHECK(r.matched());
  CHECK(r.replayed.size() == 4);
  CHECK_FALSE(r.inferred.options.allow_growth);
  CHECK(r.inferred.options.memory_limit == preallocating().memory_limit);
  CHECK(r.region_bases == std::vector<Addr>{kBase});
  CHECK(r.live_at_end == 2);
}

TEST_CASE("hand-made: a growing pool's regions at unrelated addresses are paired one by one", "[xla]") {
  BfcOptions o;
  o.memory_limit = 64 * MiB;
  o.allow_growth = true;
  // Descending, far apart: as cudaMalloc may hand them out, and below the first allocation.
  const std::vector<Addr> bases = {kBase, kBase - 0x10000000000, kBase - 0x28000000000};
  Recorder rec(o, bases);
  const Addr a = rec.alloc(1 * MiB);      // region 0: 2 MiB
  const Addr b = rec.alloc(3 * MiB / 2);  // does not fit the 1 MiB left: region 1 (4 MiB)
  rec.alloc(3 * MiB);                     // nor the 2.5 MiB left: region 2 (8 MiB)
  rec.free(a);
  rec.alloc(512 * 1024);  // back into region 0
  rec.free(b);
  const allocsim::xla::CheckResult r = allocsim::xla::check_profile(parse(rec));
  CHECK(r.matched());
  CHECK(r.inferred.options.allow_growth);
  CHECK(r.region_bases == bases);
  CHECK(r.replayed[4].region == 0);
}

TEST_CASE("hand-made: growth regions laid out back to back read as preallocation unless given", "[xla]") {
  BfcOptions o;
  o.memory_limit = 64 * MiB;
  o.allow_growth = true;
  Recorder rec(o, {kBase, kBase + 2 * MiB});  // region 1 (4 MiB) right after region 0 (2 MiB)
  rec.alloc(1 * MiB);
  rec.alloc(3 * MiB / 2);  // region 1's start: 1 MiB further than a single region would put it
  const allocsim::xla::Profile p = parse(rec);
  const allocsim::xla::CheckResult inferred = allocsim::xla::check_profile(p);
  CHECK_FALSE(inferred.inferred.options.allow_growth);
  CHECK(inferred.mismatch == std::optional<std::size_t>(1));  // reported, never passed
  const allocsim::xla::CheckResult given = allocsim::xla::check_profile(p, allocsim::xla::Growth::kOn);
  CHECK(given.matched());
  CHECK(given.region_bases == std::vector<Addr>{kBase, kBase + 2 * MiB});
}

TEST_CASE("hand-made: a wrong chunk size is reported at its event", "[xla]") {
  Recorder rec = reuse_across_threads();
  rec.records[1].chunk += 256;
  const allocsim::xla::Profile p = parse(rec);
  const allocsim::xla::CheckResult r = allocsim::xla::check_profile(p);
  REQUIRE(r.mismatch == std::optional<std::size_t>(1));
  CHECK(r.replayed.size() == 2);  // the replay stops at the first difference
  CHECK(r.expected[1].chunk_bytes == r.replayed[1].chunk_bytes + 256);
  const std::string report = allocsim::xla::format_check(p, r, 1);
  CHECK_THAT(report, Catch::Contains("MISMATCH at event 1 of 4 (1 agree before it): chunk size: profile " +
                                     std::to_string(rec.records[1].chunk) + ", replay " +
                                     std::to_string(rec.records[1].chunk - 256)));
  CHECK_THAT(report, Catch::Contains(">       1 alloc"));
  CHECK_THAT(report, Catch::Contains("        2 free "));  // context after it, from the profile only
  CHECK_THAT(report, Catch::Contains("(not replayed)"));
  CHECK_FALSE(report.find("        3 alloc") != std::string::npos);  // context 1: one event either side
  const std::string all = allocsim::xla::format_check(p, r, std::numeric_limits<std::size_t>::max());
  CHECK_THAT(all,
             Catch::Contains("        0 alloc") && Catch::Contains("        3 alloc"));  // no wrap-around
}

TEST_CASE("hand-made: a wrong offset and a wrong peak are mismatches too", "[xla]") {
  Recorder moved = reuse_across_threads();
  moved.records[3].addr += 256;  // the reuse lands elsewhere in the profile
  CHECK(allocsim::xla::check_profile(parse(moved)).mismatch == std::optional<std::size_t>(3));
  Recorder peaked = reuse_across_threads();
  peaked.records[2].peak += 256;
  CHECK(allocsim::xla::check_profile(parse(peaked)).mismatch == std::optional<std::size_t>(2));
}

TEST_CASE("hand-made: bad input gives a ProfileError naming the problem", "[xla]") {
  const Recorder rec = reuse_across_threads();
  const std::string bytes = rec.xspace();
  using Catch::Contains;
  CHECK_THROWS_WITH(allocsim::xla::parse_profile(bytes.substr(0, bytes.size() - 1), "t.pb"),
                    Contains("t.pb: not an XSpace protobuf (truncated"));
  CHECK_THROWS_WITH(allocsim::xla::parse_profile("plain text, not a profile\n", "t.pb"),
                    Contains("not an XSpace"));
  CHECK_THROWS_WITH(allocsim::xla::parse_profile("", "t.pb"), Contains("it has no planes"));
  CHECK_THROWS_WITH(parse(rec, "GPU_1_bfc"),
                    Contains("no events of allocator 'GPU_1_bfc'; the profile has events of: GPU_0_bfc"));

  allocsim::xplane::XSpace space;
  REQUIRE(space.ParseFromString(bytes));
  auto* stats =
      space.mutable_planes(0)->mutable_lines(0)->mutable_events(2)->mutable_stats();  // the 2nd allocation
  stats->erase(stats->begin() + 1);                                                   // its addr
  CHECK_THROWS_WITH(allocsim::xla::parse_profile(space.SerializeAsString(), "t.pb"),
                    Contains("t.pb: MemoryAllocation on line 'python3' lacks stat 'addr'"));

  Recorder empty(preallocating(), {kBase});
  CHECK_THROWS_WITH(parse(empty), Contains("no allocator events"));

  Recorder orphan = reuse_across_threads();
  orphan.records[2].addr += 64 * MiB;  // a free of a buffer whose allocation is not in the profile
  CHECK_THROWS_WITH(allocsim::xla::check_profile(parse(orphan)),
                    Contains("which no earlier allocation returned"));

  Recorder limits = reuse_across_threads();
  limits.records[2].available -= 256;
  CHECK_THROWS_WITH(allocsim::xla::check_profile(parse(limits)), Contains("not one pool with a fixed limit"));

  Recorder huge = reuse_across_threads();
  huge.records[0].available = std::numeric_limits<std::uint64_t>::max();  // written as uint64, as TSL would
  CHECK_THROWS_WITH(allocsim::xla::check_profile(parse(huge)),
                    Contains("event 0: bytes_available + bytes_allocated overflows"));

  Recorder doubled = reuse_across_threads();
  doubled.records.erase(doubled.records.begin() + 2);  // the free before the reuse is missing
  CHECK_THROWS_WITH(allocsim::xla::check_profile(parse(doubled)),
                    Contains("which is live (events are missing)"));
}

TEST_CASE("hand-made: a thread name that is not UTF-8 does not lose the profile", "[xla]") {
  Recorder rec = reuse_across_threads();
  rec.lines[1] = "py_xla_callback/\xff\xfe";  // TSL does not validate the names it writes
  const allocsim::xla::Profile p = parse(rec);
  CHECK(p.threads[p.events[2].thread] == rec.lines[1]);
  CHECK(allocsim::xla::check_profile(p).matched());
}
