// The reader and the exact check on the real H200 profiles in tests/data/jax_profiles/ (their
// README has the figures these tests expect).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "allocsim/scenarios/xla_check.h"
#include "allocsim/scenarios/xla_profile.h"
#include "temp_dir.h"
#include "test_inputs.h"

using allocsim::xla::AllocatorEvent;

namespace {

struct Expected {
  const char* file;
  std::size_t allocs, frees;
  std::uint64_t peak;
  std::size_t executions;
  std::size_t regions = 1;  // a growing pool (XLA_PYTHON_CLIENT_PREALLOCATE=false) has several
};
// tests/data/jax_profiles/README.md
constexpr Expected kProfiles[] = {
    {"mlp", 418, 415, 234881536, 38},
    {"cnn", 2692, 2689, 4032340224, 31},
    {"donate", 66, 64, 134218496, 34},
    {"runahead", 220, 216, 20972032, 212},
    {"attention", 1140, 1135, 135266560, 46},
    {"grow_convnet", 1199, 1194, 158933248, 26, 5},
};
constexpr std::uint64_t kMemoryLimit = 112583507968;

std::string profile_path(const char* name) {
  return allocsim::test::require_data(std::string("jax_profiles/") + name + ".xplane.pb.gz");
}

}  // namespace

TEST_CASE("reader: allocator events, executions and device ops of the real profiles", "[xla]") {
  for (const Expected& x : kProfiles) {
    INFO(x.file);
    const allocsim::xla::Profile p = allocsim::xla::read_profile(profile_path(x.file));
    CHECK(p.allocator == "GPU_0_bfc");
    CHECK(p.allocators == std::vector<std::string>{"GPU_0_bfc", "xla_gpu_host_bfc"});
    CHECK(p.allocs == x.allocs);
    CHECK(p.frees == x.frees);
    CHECK(p.events.size() == x.allocs + x.frees);
    CHECK(p.events.back().peak_bytes_in_use == x.peak);
    CHECK(p.events.front().bytes_available + p.events.front().bytes_allocated == kMemoryLimit);
    CHECK(std::is_sorted(
        p.events.begin(), p.events.end(),
        [](const AllocatorEvent& a, const AllocatorEvent& b) { return a.time_ps < b.time_ps; }));
    CHECK(p.executes.size() == x.executions);
    CHECK_FALSE(p.device_ops.empty());
    CHECK_FALSE(p.streams.empty());
    for (const std::string& s : p.streams) CHECK(s.starts_with("Stream #"));
  }
}

TEST_CASE("reader: cnn's allocations come mostly from compile threads", "[xla]") {
  const allocsim::xla::Profile p = allocsim::xla::read_profile(profile_path("cnn"));
  std::size_t compile = 0;
  for (const AllocatorEvent& e : p.events)
    compile += e.kind == AllocatorEvent::Kind::kAlloc &&
               p.threads[e.thread].starts_with("tf_pjrt_compile_thread_pool/");
  // README of the data set: 2,597 allocations on compile threads (the autotuner).
  CHECK(compile == 2597);
}

TEST_CASE("reader: a profile directory gives the same profile as its file", "[xla]") {
  const std::string file = profile_path("donate");
  allocsim::test::TempDir dir;
  const auto run = dir.path / "plugins" / "profile" / "2026_11_30_14_00_00";
  std::filesystem::create_directories(run);
  std::filesystem::copy_file(file, run / "host.xplane.pb.gz");
  const allocsim::xla::Profile from_dir = allocsim::xla::read_profile(dir.path.string());
  const allocsim::xla::Profile from_file = allocsim::xla::read_profile(file);
  CHECK(from_dir.source == (run / "host.xplane.pb.gz").string());
  REQUIRE(from_dir.events.size() == from_file.events.size());
  for (std::size_t i = 0; i < from_dir.events.size(); ++i) {
    CHECK(from_dir.events[i].addr == from_file.events[i].addr);
    CHECK(from_dir.events[i].time_ps == from_file.events[i].time_ps);
  }
}

TEST_CASE("xla-check: every event of every real profile matches the BFC model", "[xla]") {
  for (const Expected& x : kProfiles) {
    INFO(x.file);
    const allocsim::xla::Profile p = allocsim::xla::read_profile(profile_path(x.file));
    const allocsim::xla::CheckResult r = allocsim::xla::check_profile(p);
    CHECK(r.matched());
    CHECK(r.replayed.size() == p.events.size());
    CHECK(r.peak_bytes_in_use == x.peak);
    CHECK(r.live_at_end == x.allocs - x.frees);
    CHECK(r.inferred.options.memory_limit == kMemoryLimit);
    // XLA's default client preallocates one region at its first allocation; the growing pool's
    // regions sit wherever the driver put them.
    CHECK(r.inferred.options.allow_growth == (x.regions > 1));
    CHECK(r.region_bases.size() == x.regions);
    CHECK(r.region_bases.front() == p.events.front().addr);
  }
}

TEST_CASE("reader: truncated gzip, empty directories and ambiguous directories are errors", "[xla]") {
  using Catch::Contains;
  const std::string file = profile_path("donate");
  allocsim::test::TempDir dir;
  {
    std::ifstream in(file, std::ios::binary);
    std::string head(100000, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(dir.path / "cut.xplane.pb.gz", std::ios::binary) << head;
  }
  CHECK_THROWS_WITH(allocsim::xla::read_profile((dir.path / "cut.xplane.pb.gz").string()),
                    Contains("cut.xplane.pb.gz: corrupt gzip data"));

  const auto empty = dir.path / "empty";
  std::filesystem::create_directories(empty / "plugins" / "profile" / "run");
  CHECK_THROWS_WITH(allocsim::xla::read_profile(empty.string()),
                    Contains("no *.xplane.pb or *.xplane.pb.gz in it or under plugins/profile/<run>/"));

  const auto two = dir.path / "two";
  std::filesystem::create_directories(two / "plugins" / "profile" / "run1");
  std::filesystem::create_directories(two / "plugins" / "profile" / "run2");
  std::filesystem::copy_file(file, two / "plugins" / "profile" / "run1" / "a.xplane.pb.gz");
  std::filesystem::copy_file(file, two / "plugins" / "profile" / "run2" / "a.xplane.pb.gz");
  CHECK_THROWS_WITH(allocsim::xla::read_profile(two.string()),
                    Contains("several profiles found; name one:") && Contains("run1/a.xplane.pb.gz") &&
                        Contains("run2/a.xplane.pb.gz"));
}
