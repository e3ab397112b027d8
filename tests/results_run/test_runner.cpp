// run_one end to end on a small hand-built scenario (the seed reproducer's shape): defaults come from
// the scenario, flags override them, unknown names are input errors, the JSON and the Perfetto trace
// of a real run have the contract's structure.
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <filesystem>

#include "allocsim/results/perfetto_writer.h"
#include "allocsim/results/platform_io.h"
#include "allocsim/results/result_json.h"
#include "allocsim/results/runner.h"
#include "trace_checks.h"

using namespace allocsim;

namespace {

BufferAccess whole(BufferId b) { return {b, 0, 0}; }

// compute: fill X (1 ms); host releases X; autotune allocates S (same bytes under `immediate`) and
// zeroes it; compute then reads X. Repeated `trials` times.
Scenario repro(int trials = 2) {
  Scenario s;
  s.name = "mini-repro";
  s.device.memory_limit = 64 << 20;
  s.program.streams = {{"compute", true}, {"autotune", false}};
  s.default_policy = "immediate";
  s.default_guard = "none";
  s.semaphore = 4;
  s.seed = 5;
  for (int t = 0; t < trials; ++t) {
    const BufferId x = BufferId(s.program.buffer_names.size());
    s.program.buffer_names.push_back("X" + std::to_string(t));
    s.program.buffer_names.push_back("S" + std::to_string(t));
    const BufferId scratch = x + 1;
    auto op = [&](HostOpKind k) {
      HostOp o;
      o.kind = k;
      return o;
    };
    HostOp begin = op(HostOpKind::BeginExecution);
    s.program.ops.push_back(begin);
    HostOp ax = op(HostOpKind::Alloc);
    ax.buffer = x, ax.stream = 0, ax.bytes = 1 << 20;
    s.program.ops.push_back(ax);
    HostOp fill = op(HostOpKind::Kernel);
    fill.stream = 0, fill.duration = Duration::fixed(10000), fill.writes = {whole(x)};
    s.program.ops.push_back(fill);
    HostOp spin = op(HostOpKind::Kernel);
    spin.stream = 0, spin.duration = Duration::fixed(1000000);
    s.program.ops.push_back(spin);
    HostOp use = op(HostOpKind::Kernel);
    use.stream = 0, use.duration = Duration::fixed(10000), use.reads = {whole(x)};
    s.program.ops.push_back(use);
    HostOp rx = op(HostOpKind::Release);
    rx.buffer = x;
    s.program.ops.push_back(rx);
    HostOp as = op(HostOpKind::Alloc);
    as.buffer = scratch, as.stream = 1, as.bytes = 1 << 20;
    s.program.ops.push_back(as);
    HostOp zero = op(HostOpKind::Memset);
    zero.stream = 1, zero.duration = Duration::fixed(5000), zero.writes = {whole(scratch)};
    s.program.ops.push_back(zero);
    HostOp rs = op(HostOpKind::Release);
    rs.buffer = scratch;
    s.program.ops.push_back(rs);
    s.program.ops.push_back(op(HostOpKind::EndExecution));
    s.program.ops.push_back(op(HostOpKind::DeviceSync));
  }
  return s;
}

}  // namespace

TEST_CASE("run_one resolves defaults from the scenario and flags override them", "[runner]") {
  const Scenario s = repro();
  RunConfig c;
  const RunResult d = run_one(s, c);
  CHECK(d.scenario == "mini-repro");
  CHECK(d.policy == "immediate");
  CHECK(d.guard == "none");
  CHECK(d.semaphore == 4);
  CHECK(d.seed == 5);
  CHECK(d.completed);
  CHECK(d.allocs == 4);
  CHECK(d.races_latent > 0);  // immediate + no guard: the autotune memset races the compute read

  c.policy = "host-sync";
  c.guard = "wait-compute";
  c.semaphore = 1;
  c.seed = 9;
  const RunResult o = run_one(s, c);
  CHECK(o.policy == "host-sync");
  CHECK(o.guard == "wait-compute");
  CHECK(o.semaphore == 1);
  CHECK(o.seed == 9);
  CHECK(o.races_latent == 0);
  CHECK(o.races_manifest == 0);
  CHECK(o.host_stall_ns > d.host_stall_ns);  // host-sync pays in host stall
}

TEST_CASE("run_one is deterministic", "[runner]") {
  const Scenario s = repro(3);
  RunConfig c;
  c.policy = "deferred-callback";
  CHECK(result_row(run_one(s, c)) == result_row(run_one(s, c)));
  CHECK(pretty_json(result_to_json(run_one(s, c))) == pretty_json(result_to_json(run_one(s, c))));
}

TEST_CASE("run_one rejects unknown names and bad values with the valid choices", "[runner]") {
  const Scenario s = repro(1);
  RunConfig c;
  c.policy = "bogus";
  CHECK_THROWS_WITH(run_one(s, c), Catch::Contains("unknown policy 'bogus'") && Catch::Contains("immediate") &&
                                       Catch::Contains("timestamp-frontier"));
  c.policy.clear();
  c.guard = "nope";
  CHECK_THROWS_WITH(run_one(s, c), Catch::Contains("unknown guard 'nope'") && Catch::Contains("wait-compute"));
  c.guard.clear();
  c.semaphore = 0;
  CHECK_THROWS_AS(run_one(s, c), RunInputError);
  c.semaphore.reset();
  c.platform_file = "/nonexistent/platform.json";
  CHECK_THROWS_WITH(run_one(s, c), Catch::Contains("/nonexistent/platform.json"));
}

TEST_CASE("platform file and --set platform keys reach the simulation", "[runner]") {
  const Scenario s = repro(1);
  RunConfig c;
  c.policy = "deferred-callback";
  const RunResult base = run_one(s, c);

  PlatformProfile slow;
  slow.launch_overhead_ns = 50000;
  const auto path = std::filesystem::temp_directory_path() / "allocsim_runner_platform.json";
  save_platform_file(path.string(), slow);
  c.platform_file = path.string();
  CHECK(resolve_sim_options(s, c).platform.launch_overhead_ns == 50000);
  const RunResult slowed = run_one(s, c);
  CHECK(slowed.makespan_ns > base.makespan_ns);

  c.sets.set("launch_overhead_ns", 7);
  CHECK(resolve_sim_options(s, c).platform.launch_overhead_ns == 7);
  std::filesystem::remove(path);
}

TEST_CASE("a real run's JSON has the section-6 keys - its trace has the contract's structure", "[runner][perfetto]") {
  const Scenario s = repro(2);
  PerfettoWriter trace(&s.program, s.name);
  RunConfig c;
  c.policy = "deferred-callback";
  const RunResult r = run_one(s, c, {&trace});

  const boost::json::object o = result_to_json(r, &s.program);
  for (const char* k : {"scenario", "policy", "guard", "semaphore", "seed"}) CHECK(o.contains(k));
  for (const char* k : {"latent", "manifest"}) CHECK(o.at("races").as_object().contains(k));
  for (const char* k : {"peak_bytes_in_use", "peak_live_bytes", "peak_pending_bytes", "peak_pool_bytes"})
    CHECK(o.at("memory").as_object().at(k).is_number());
  CHECK(o.at("memory").at("peak_live_bytes").to_number<std::uint64_t>() >= (1u << 20));
  CHECK(o.at("time").at("makespan_ns").to_number<std::int64_t>() > 1000000);
  CHECK(o.at("counts").at("callbacks").to_number<std::uint64_t>() > 0);  // deferred frees ran

  const TraceSummary t = check_chrome_trace(trace.json());
  CHECK(t.thread_names.at(PerfettoWriter::stream_tid(0)) == "stream compute");
  CHECK(t.thread_names.at(PerfettoWriter::stream_tid(1)) == "stream autotune");
  std::size_t compute_kernels = 0, autotune_memsets = 0;
  for (const auto* sl : t.slices) {
    const auto tid = sl->at("tid").as_int64();
    if (tid == PerfettoWriter::stream_tid(0) && sl->at("args").at("op").as_string() == "kernel") ++compute_kernels;
    if (tid == PerfettoWriter::stream_tid(1) && sl->at("args").at("op").as_string() == "memset") ++autotune_memsets;
  }
  CHECK(compute_kernels == 6);
  CHECK(autotune_memsets == 2);
  for (const char* counter : {"live", "pending", "in_use", "pool"}) {
    INFO(counter);
    REQUIRE(t.counter_values.count(counter) == 1);
  }
  CHECK(*std::max_element(t.counter_values.at("live").begin(), t.counter_values.at("live").end()) ==
        r.peak_live_bytes);
  CHECK(*std::max_element(t.counter_values.at("in_use").begin(), t.counter_values.at("in_use").end()) ==
        r.peak_bytes_in_use);
  // Every host release (4) is an instant and starts a flow; deferred frees end them on the callback thread.
  std::size_t releases = 0;
  for (const auto& [name, tid] : t.instants)
    if (name.rfind("release ", 0) == 0 && tid == PerfettoWriter::kHostTid) ++releases;
  CHECK(releases == 4);
  REQUIRE(t.flows.size() == 4);
  for (const auto& [id, f] : t.flows) {
    CHECK(f.start_tid == PerfettoWriter::kHostTid);
    CHECK(f.end_tid == PerfettoWriter::kCallbackTid);
    CHECK(f.end_ts > f.start_ts);
  }
}
