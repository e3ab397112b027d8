// A JAX/XLA profile as a host program (xla_program.h): the conversion's counts, and the baseline
// check: under the upstream policy (immediate free, no guard) the replay's pool places every
// allocation where the real allocator did and reaches the profile's own peak_bytes_in_use.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "allocsim/results/runner.h"
#include "allocsim/scenarios/loader.h"
#include "allocsim/scenarios/xla_profile.h"
#include "allocsim/scenarios/xla_usage.h"
#include "temp_dir.h"
#include "test_inputs.h"

using namespace allocsim;

namespace {

std::string profile_path(const char* name) {
  return test::require_data(std::string("jax_profiles/") + name + ".xplane.pb.gz");
}

std::size_t count(const Program& p, HostOpKind kind) {
  return std::size_t(
      std::count_if(p.ops.begin(), p.ops.end(), [&](const HostOp& op) { return op.kind == kind; }));
}

// The replay's address of every allocation, by BufferId.
struct Placements : Observer {
  std::map<BufferId, Addr> addr;
  void on_alloc(AgentId, const BufferInfo& buf, TimeNs) override { addr[buf.id] = buf.chunk.addr; }
};

}  // namespace

TEST_CASE(
    "program: donate becomes one Alloc per allocation, one Release per free, its executions and device ops",
    "[xla][program]") {
  const std::string path = profile_path("donate");
  const xla::Profile profile = xla::read_profile(path);
  const Scenario s = load_scenario(path);
  CHECK(s.name == "xla:donate");
  CHECK(count(s.program, HostOpKind::Alloc) == profile.allocs);
  CHECK(count(s.program, HostOpKind::Release) == profile.frees);
  CHECK(count(s.program, HostOpKind::BeginExecution) == profile.executes.size());
  CHECK(count(s.program, HostOpKind::EndExecution) == profile.executes.size());
  CHECK(count(s.program, HostOpKind::Kernel) + count(s.program, HostOpKind::Memset) +
            count(s.program, HostOpKind::Copy) ==
        profile.device_ops.size());
  // tests/data/jax_profiles/README.md: 66 allocations, 64 frees, 34 executions.
  CHECK(profile.allocs == 66);
  CHECK(profile.frees == 64);
  CHECK(profile.executes.size() == 34);
  REQUIRE(!s.program.streams.empty());
  CHECK(s.program.streams[0].is_compute);
  // Every profile stream with device ops is a program stream; compute is the profile's "(Compute" one.
  std::set<std::uint32_t> used;
  for (const xla::DeviceOp& op : profile.device_ops) used.insert(op.stream);
  CHECK(s.program.streams.size() == used.size());
  CHECK(s.device.memory_limit == 112583507968);
  CHECK_FALSE(s.device.allow_growth);
}

TEST_CASE("program: load_scenario takes the directory jax.profiler wrote", "[xla][program]") {
  const std::string file = profile_path("donate");
  allocsim::test::TempDir dir;
  const std::filesystem::path run = dir.path / "plugins" / "profile" / "2026_01_01_00_00_00";
  std::filesystem::create_directories(run);
  std::filesystem::copy_file(file, run / "donate.xplane.pb.gz");
  const Scenario from_dir = load_scenario(dir.path.string());
  const Scenario from_file = load_scenario(file);
  CHECK(from_dir.name == "xla:donate");
  CHECK(from_dir.program.ops.size() == from_file.program.ops.size());
  CHECK_THROWS_AS(load_scenario((dir.path / "no_such.xplane.pb").string()), ScenarioError);
}

TEST_CASE("program: xla_autotune_scratch=0 leaves out exactly the compile threads' allocations",
          "[xla][program]") {
  const std::string path = profile_path("mlp");
  const xla::Usage usage = xla::map_usage(xla::read_profile(path));
  std::size_t compile_allocs = 0, compile_frees = 0;
  for (const xla::UsedBuffer& b : usage.buffers) {
    if (b.alloc_role != xla::ThreadRole::kCompile) continue;
    ++compile_allocs;
    compile_frees += b.free_event.has_value();
  }
  REQUIRE(compile_allocs > 0);
  const Scenario with = load_scenario(path);
  Params off;
  off.set("xla_autotune_scratch", 0);
  const Scenario without = load_scenario(path, off);
  CHECK(count(without.program, HostOpKind::Alloc) == count(with.program, HostOpKind::Alloc) - compile_allocs);
  CHECK(count(without.program, HostOpKind::Release) ==
        count(with.program, HostOpKind::Release) - compile_frees);
  CHECK(count(without.program, HostOpKind::Kernel) ==
        count(with.program, HostOpKind::Kernel));  // device work stays
  Params bad;
  bad.set("xla_autotune_scratch", 2);
  CHECK_THROWS_AS(load_scenario(path, bad), ScenarioError);
}

TEST_CASE("program: the callback thread's frees are queried behind their execution", "[xla][program]") {
  // mlp frees on the callback thread (tests/data/jax_profiles/README.md). Each such Release of a
  // buffer an execution used follows an EventQuery, so the replay orders it after the device work
  // XLA deferred it behind; the program's own frees are plain Releases.
  const std::string path = profile_path("mlp");
  const xla::Profile profile = xla::read_profile(path);
  const xla::Usage usage = xla::map_usage(profile);
  const Scenario s = load_scenario(path);
  std::size_t callback = 0, queried = 0, host = 0, host_queried = 0;
  for (std::size_t i = 1; i < s.program.ops.size(); ++i) {
    const HostOp& op = s.program.ops[i];
    if (op.kind != HostOpKind::Release) continue;
    const xla::UsedBuffer& buf = usage.buffers.at(std::size_t(op.buffer));  // BufferId = allocation index
    const bool after_query = s.program.ops[i - 1].kind == HostOpKind::EventQuery;
    if (buf.free_role == xla::ThreadRole::kCallback && !buf.executions.empty()) {
      ++callback;
      queried += after_query;
    } else if (buf.free_role == xla::ThreadRole::kHost) {
      ++host;
      host_queried += after_query;
    }
  }
  CHECK(callback > 0);
  CHECK(queried == callback);
  CHECK(host > 0);
  CHECK(host_queried == 0);
}

TEST_CASE("program: autotuner scratch used on another stream is that stream's allocation, not compute's",
          "[xla][program]") {
  // cnn's autotuner runs some candidates on the compute stream (#14) and some on #32/#33, with the
  // same scratch. Upstream frees that scratch straight to the allocator (no PjRt buffer, no hold
  // for other-stream uses); in the engine that is an allocation for a non-compute stream. Were it
  // allocated on compute, `immediate` would hold it for its #32/#33 uses and free it from a
  // callback, after the real allocator had already reused its bytes.
  const std::string path = profile_path("cnn");
  const xla::Profile profile = xla::read_profile(path);
  const xla::Usage usage = xla::map_usage(profile);
  const Scenario s = load_scenario(path);
  std::size_t mixed = 0, compute_only = 0;
  for (const HostOp& op : s.program.ops) {
    if (op.kind != HostOpKind::Alloc) continue;
    const xla::UsedBuffer& buf = usage.buffers.at(std::size_t(op.buffer));
    if (buf.alloc_role != xla::ThreadRole::kCompile) {
      CHECK(op.stream == 0);
      continue;
    }
    bool on_compute = false, elsewhere = false;
    for (std::uint32_t o : buf.ops)
      (profile.device_ops[o].stream == usage.compute_stream ? on_compute : elsewhere) = true;
    if (elsewhere) {
      CHECK(op.stream != 0);
      mixed += on_compute;
    } else {
      CHECK(op.stream == 0);
      compute_only += on_compute;
    }
  }
  CHECK(mixed == 80);  // the buffers that drifted when they were compute allocations
  CHECK(compute_only > 0);
}

TEST_CASE("baseline: immediate + none reproduces every real placement and the real peak",
          "[xla][program][baseline]") {
  // The four profiles of the data set and the two this project captured (attention preallocates;
  // grow_convnet, a growing pool, is checked below).
  for (const char* name : {"donate", "runahead", "mlp", "cnn", "attention"}) {
    INFO(name);
    const std::string path = profile_path(name);
    const xla::Profile profile = xla::read_profile(path);
    const Scenario s = load_scenario(path);
    RunConfig config;
    config.scenario = path;
    config.policy = "immediate";
    config.guard = "none";
    Placements placements;
    const RunResult r = run_one(s, config, {&placements});
    INFO(r.error);
    REQUIRE(r.completed);
    CHECK(r.ooms == 0);
    // Buffers are numbered in allocation order, as the profile's allocations are.
    std::vector<Addr> real;
    for (const xla::AllocatorEvent& e : profile.events)
      if (e.kind == xla::AllocatorEvent::Kind::kAlloc) real.push_back(e.addr);
    REQUIRE(placements.addr.size() == real.size());
    const Addr real_base = real.front(), replay_base = placements.addr.at(0);  // the one region's start
    std::size_t differing = 0;
    for (std::size_t b = 0; b < real.size(); ++b)
      if (placements.addr.at(BufferId(b)) - replay_base != real[b] - real_base) ++differing;
    CHECK(differing == 0);
    CHECK(r.peak_bytes_in_use == profile.events.back().peak_bytes_in_use);
  }
}

TEST_CASE("baseline: a growing pool's replay reaches the real peak in use", "[xla][program][baseline]") {
  // grow_convnet was captured with XLA_PYTHON_CLIENT_PREALLOCATE=false: its regions lie at the
  // driver's addresses, the replay's where the oracle's sub-allocator puts them, so addresses are
  // compared per region by xla-check (test_real_profiles.cpp); here the run's peak.
  const std::string path = profile_path("grow_convnet");
  const xla::Profile profile = xla::read_profile(path);
  RunConfig config;
  config.scenario = path;
  config.policy = "immediate";
  config.guard = "none";
  const RunResult r = run_one(load_scenario(path), config, {});
  INFO(r.error);
  REQUIRE(r.completed);
  CHECK(r.ooms == 0);
  CHECK(r.peak_bytes_in_use == profile.events.back().peak_bytes_in_use);
}
