// Both real PyTorch traces from an H200 (tests/data/torch_traces) replayed through run_one under
// every free policy (guard none) and under every guard (policy stream-aware, the trace's default):
// each run must complete without an OOM, and the simulated peak of host-held (live) bytes must equal
// the trace's own peak of requested bytes. That peak is computed here, independently of the
// importer, by walking the trace JSON (+size at `alloc`, -size at `free_requested`; a free of an
// address the trace never allocated counts as live from the start). Equality holds whatever the
// policy because policies only decide when released bytes return to the pool (pending / in-use);
// live bytes follow the host's alloc/release order, which the replay keeps.
//
// Run time: both traces are small (1511 and 212 allocations); the 24 replays take about 0.1 s
// on the shared 2-core machine (measured).
#include <catch2/catch.hpp>

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "allocsim/core/policy.h"
#include "allocsim/results/runner.h"
#include "allocsim/scenarios/loader.h"
#include "allocsim/scenarios/torch_trace.h"
#include "test_inputs.h"

using namespace allocsim;

namespace {

std::string trace_path(const std::string& name) { return allocsim::test::require_data("torch_traces/" + name); }
const std::vector<std::string> kTraces = {"mlp_adamw.json.gz", "sidestream_record_stream.json.gz"};

struct TraceFacts {
  std::uint64_t peak_requested = 0;
  std::uint64_t allocs = 0;
  std::uint64_t max_memory_reserved = 0;
};

/// One pass over device 0's entries. Frees of never-allocated addresses are found first (they are
/// live from the start), then the running sum of requested bytes gives the peak.
TraceFacts walk_trace(const std::string& json_text) {
  const boost::json::value root = boost::json::parse(json_text);
  const boost::json::array& entries = root.at("device_traces").at(0).as_array();
  TraceFacts facts;
  std::uint64_t before_start = 0;
  {
    std::map<std::uint64_t, bool> allocated;
    for (const auto& v : entries) {
      const auto& e = v.as_object();
      const auto action = e.at("action").as_string();
      const auto addr = e.at("addr").to_number<std::uint64_t>();
      if (action == "alloc") allocated[addr] = true;
      else if (action == "free_requested" && !allocated.erase(addr))
        before_start += e.at("size").to_number<std::uint64_t>();
    }
  }
  std::map<std::uint64_t, std::uint64_t> live;  // addr -> requested size
  std::uint64_t current = before_start;
  facts.peak_requested = before_start;
  for (const auto& v : entries) {
    const auto& e = v.as_object();
    const auto action = e.at("action").as_string();
    const auto addr = e.at("addr").to_number<std::uint64_t>();
    if (action == "alloc") {
      const auto size = e.at("size").to_number<std::uint64_t>();
      live[addr] = size;
      current += size;
      facts.peak_requested = std::max(facts.peak_requested, current);
      ++facts.allocs;
    } else if (action == "free_requested") {
      auto it = live.find(addr);
      current -= it != live.end() ? it->second : e.at("size").to_number<std::uint64_t>();
      if (it != live.end()) live.erase(it);
    }
  }
  facts.max_memory_reserved = root.at("metadata").at("max_memory_reserved").to_number<std::uint64_t>();
  return facts;
}

RunResult replay(const Scenario& scenario, const std::string& trace, const std::string& policy,
                 const std::string& guard) {
  RunConfig config;
  config.scenario = trace;
  config.policy = policy;
  config.guard = guard;
  return run_one(scenario, config);
}

void check_replay(const RunResult& r, const TraceFacts& facts) {
  INFO("policy " << r.policy << ", guard " << r.guard << ": " << r.error);
  CHECK(r.completed);
  CHECK(r.error.empty());
  CHECK(r.ooms == 0);
  CHECK(r.allocs == facts.allocs);
  CHECK(r.peak_live_bytes == facts.peak_requested);
  // the pool holds at least what is live; in-use at least live
  CHECK(r.peak_bytes_in_use >= r.peak_live_bytes);
  CHECK(r.peak_pool_bytes >= r.peak_bytes_in_use);
  CHECK(r.reference_max_reserved == facts.max_memory_reserved);
}

}  // namespace

TEST_CASE("torch traces replay under every policy with guard none", "[torch]") {
  for (const auto& trace : kTraces) {
    const std::string path = trace_path(trace);
    const TraceFacts facts = walk_trace(allocsim::test::gunzip_file(path));
    REQUIRE(facts.peak_requested > 0);
    const Scenario scenario = load_scenario(path);
    for (const auto& policy : list_policies()) {
      INFO(trace);
      check_replay(replay(scenario, path, policy.name, "none"), facts);
    }
  }
}

TEST_CASE("torch traces replay under every guard with policy stream-aware", "[torch]") {
  for (const auto& trace : kTraces) {
    const std::string path = trace_path(trace);
    const TraceFacts facts = walk_trace(allocsim::test::gunzip_file(path));
    const Scenario scenario = load_scenario(path);
    for (const auto& guard : list_guards()) {
      INFO(trace);
      check_replay(replay(scenario, path, "stream-aware", guard.name), facts);
    }
  }
}

TEST_CASE("the replay's live bytes depend on the trace, not on the policy", "[torch]") {
  // Guard against a tautology: the two traces have different peaks, and each run reports its own.
  const TraceFacts a = walk_trace(allocsim::test::gunzip_file(trace_path(kTraces[0])));
  const TraceFacts b = walk_trace(allocsim::test::gunzip_file(trace_path(kTraces[1])));
  CHECK(a.peak_requested != b.peak_requested);
  const RunResult ra = replay(load_scenario(trace_path(kTraces[0])), kTraces[0], "immediate", "none");
  const RunResult rb = replay(load_scenario(trace_path(kTraces[1])), kTraces[1], "immediate", "none");
  CHECK(ra.peak_live_bytes == a.peak_requested);
  CHECK(rb.peak_live_bytes == b.peak_requested);
}

namespace {

/// X (1 MiB) is allocated and freed on a side stream; then Y (at 110 us) and, with `z`, Z (at
/// 1500 us), 1 MiB each, are allocated on the same stream and kept. `completion` is X's
/// free_completed entry: right after its request (returned inside free()), at 1000 us (between Y
/// and Z: record_stream's event polled late), or none.
std::string side_stream_trace(const std::string& completion, bool z) {
  const std::string x_done = R"({"action": "free_completed", "addr": 4096, "size": 1048576, "stream": 7, "time_us": )";
  return std::string(R"({"device_traces": [[
    {"action": "alloc", "addr": 4096, "size": 1048576, "stream": 7, "time_us": 0},
    {"action": "free_requested", "addr": 4096, "size": 1048576, "stream": 7, "time_us": 10},)") +
         (completion == "at once" ? x_done + "10},\n" : "") + R"(
    {"action": "alloc", "addr": 9999360, "size": 1048576, "stream": 7, "time_us": 110},)" +
         (completion == "later" ? x_done + "1000},\n" : "") +
         (z ? R"({"action": "alloc", "addr": 19998720, "size": 1048576, "stream": 7, "time_us": 1500},)" : "") + R"(
    {"action": "alloc", "addr": 99999744, "size": 256, "stream": 0, "time_us": 2000}
  ]]})";
}

RunResult replay_text(const std::string& text, const std::string& policy) {
  RunConfig config;
  config.scenario = "synthetic";
  config.policy = policy;
  config.guard = "none";
  return run_one(torch_trace_from_json(text, "synthetic.json"), config);
}

constexpr std::uint64_t kMiB = 1 << 20;

}  // namespace

TEST_CASE("a side-stream free completed later keeps its block until the completion", "[torch]") {
  // Under deferred-callback the block comes back only after its hold: Y needs fresh bytes, Z
  // (after the completion) takes X's. Under immediate the host's release returns it at once.
  const RunResult held = replay_text(side_stream_trace("later", false), "deferred-callback");
  INFO(held.error);
  REQUIRE(held.completed);
  CHECK(held.peak_pending_bytes >= kMiB);
  CHECK(held.peak_bytes_in_use >= 2 * kMiB);
  CHECK(held.races_latent == 0);
  CHECK(replay_text(side_stream_trace("later", true), "deferred-callback").peak_bytes_in_use < 3 * kMiB);
  const RunResult immediate = replay_text(side_stream_trace("later", false), "immediate");
  CHECK(immediate.peak_pending_bytes == 0);
  CHECK(immediate.peak_bytes_in_use < 2 * kMiB);
}

TEST_CASE("a free returned inside free() holds nothing", "[torch]") {
  const RunResult r = replay_text(side_stream_trace("at once", false), "deferred-callback");
  REQUIRE(r.completed);
  CHECK(r.peak_bytes_in_use < 2 * kMiB);
}

TEST_CASE("a free never completed in the trace is held to its end", "[torch]") {
  // still held when Z is allocated at 1500 us: X, Y and Z all hold bytes
  const RunResult r = replay_text(side_stream_trace("never", true), "deferred-callback");
  REQUIRE(r.completed);
  CHECK(r.peak_pending_bytes >= kMiB);
  CHECK(r.peak_bytes_in_use >= 3 * kMiB);
}
