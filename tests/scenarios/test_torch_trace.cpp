// PyTorch snapshot replay: the two real H200 traces, and small synthetic traces for each rule
// (stream mapping, holds from free_completed, frees of addresses allocated before the recording,
// leaks).
#include <catch2/catch.hpp>

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <boost/json.hpp>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <vector>

#include "allocsim/scenarios/torch_trace.h"
#include "scenario_test_util.h"
#include "test_inputs.h"

using namespace allocsim;
using allocsim::test::count_ops;
using allocsim::test::peak_live_bytes;

namespace {

std::string trace_path(const std::string& name) { return allocsim::test::require_data("torch_traces/" + name); }

/// The trace's own peak of requested bytes, computed straight from its entries: +size at alloc,
/// -size at free_requested; a free of an address never allocated counts as live from the start.
std::uint64_t trace_peak_requested(const std::string& json_text) {
  auto root = boost::json::parse(json_text);
  const auto& entries = root.at("device_traces").at(0).as_array();
  std::map<std::uint64_t, std::uint64_t> live;
  std::uint64_t before_start = 0;
  for (const auto& v : entries) {
    const auto& e = v.as_object();
    std::string action(e.at("action").as_string());
    auto addr = e.at("addr").to_number<std::uint64_t>();
    if (action == "alloc") live[addr] = e.at("size").to_number<std::uint64_t>();
    if (action == "free_requested" && !live.erase(addr)) before_start += e.at("size").to_number<std::uint64_t>();
  }
  live.clear();
  std::uint64_t cur = before_start, peak = before_start;
  for (const auto& v : entries) {
    const auto& e = v.as_object();
    std::string action(e.at("action").as_string());
    auto addr = e.at("addr").to_number<std::uint64_t>();
    auto size = e.at("size").to_number<std::uint64_t>();
    if (action == "alloc") {
      live[addr] = size;
      cur += size;
      peak = std::max(peak, cur);
    } else if (action == "free_requested") {
      auto it = live.find(addr);
      cur -= it == live.end() ? size : it->second;
      if (it != live.end()) live.erase(it);
    }
  }
  return peak;
}

/// What the trace says about its frees, straight from its entries: a free whose free_completed is
/// the next entry was returned inside free(); any other was held (later or never completed).
struct FreeFacts {
  std::map<std::uint64_t, std::size_t> requested, completed;  // per recorded stream
  std::size_t held = 0, never_completed = 0, max_held_at_once = 0;
};

FreeFacts free_facts(const std::string& json_text) {
  auto root = boost::json::parse(json_text);
  const auto& entries = root.at("device_traces").at(0).as_array();
  FreeFacts f;
  std::map<std::uint64_t, std::size_t> awaiting;  // addr -> entry index of its free_requested
  std::size_t held_now = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i].as_object();
    std::string action(e.at("action").as_string());
    auto addr = e.at("addr").to_number<std::uint64_t>();
    auto stream = e.at("stream").to_number<std::uint64_t>();
    if (action == "free_requested") {
      ++f.requested[stream];
      awaiting[addr] = i;
      bool at_once = i + 1 < entries.size() && entries[i + 1].as_object().at("action").as_string() == "free_completed" &&
                     entries[i + 1].as_object().at("addr").to_number<std::uint64_t>() == addr;
      if (!at_once) {
        ++f.held;
        f.max_held_at_once = std::max(f.max_held_at_once, ++held_now);
      }
    } else if (auto it = awaiting.find(addr); action == "free_completed" && it != awaiting.end()) {
      ++f.completed[stream];
      if (it->second + 1 != i) --held_now;
      awaiting.erase(it);
    }
  }
  f.never_completed = awaiting.size();
  return f;
}

/// Host time (ns) at which each op is issued, from the HostDelays before it (time scale 1, no costs).
std::vector<double> issue_times(const Program& prog) {
  std::vector<double> t;
  double now = 0;
  for (const auto& op : prog.ops) {
    t.push_back(now);
    if (op.kind == HostOpKind::HostDelay) now += op.duration.a;
  }
  t.push_back(now);  // the end of the trace
  return t;
}

std::string error_of_json(const std::string& text, const Params& p = {}) {
  try {
    torch_trace_from_json(text, "t.json", p);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("real traces: the replay's peak live bytes equal the trace's peak requested bytes") {
  for (const char* name : {"mlp_adamw.json.gz", "sidestream_record_stream.json.gz"}) {
    INFO(name);
    const std::string path = trace_path(name);
    Scenario s = load_scenario(path);
    std::uint64_t expected = trace_peak_requested(allocsim::test::gunzip_file(path));
    CHECK(expected > 0);
    CHECK(peak_live_bytes(s.program) == expected);
    CHECK(s.reference_max_allocated > 0);
    CHECK(s.reference_max_reserved >= s.reference_max_allocated);
    CHECK(count_ops(s.program, HostOpKind::Alloc) > 100);
    // one read-only hold per free the trace did not return inside free(), and no other device op
    const FreeFacts facts = free_facts(allocsim::test::gunzip_file(path));
    CHECK(count_ops(s.program, HostOpKind::Kernel) == facts.held);
    const std::vector<double> t = issue_times(s.program);
    std::size_t to_the_end = 0;
    for (std::size_t i = 0; i < s.program.ops.size(); ++i) {
      const HostOp& op = s.program.ops[i];
      if (op.kind != HostOpKind::Kernel) continue;
      CHECK(op.writes.empty());
      CHECK(op.reads.size() == 1);
      if (t[i] + op.duration.a == t.back()) ++to_the_end;
    }
    CHECK(to_the_end == facts.never_completed);
  }
}

TEST_CASE("real traces: what the data says about the side stream's frees") {
  // sidestream_record_stream: the side stream's record_stream frees were never returned within
  // the recording (PyTorch took a fresh segment for each); every other free came back inside free().
  const FreeFacts side = free_facts(allocsim::test::gunzip_file(trace_path("sidestream_record_stream.json.gz")));
  REQUIRE(side.requested.size() == 2);
  const std::uint64_t side_stream = std::prev(side.requested.end())->first;
  CHECK(side.requested.at(0) == side.completed.at(0));
  CHECK(side.completed.at(side_stream) < side.requested.at(side_stream));
  CHECK(side.never_completed == side.requested.at(side_stream) - side.completed.at(side_stream));
  CHECK(side.held == side.never_completed);
  const FreeFacts mlp = free_facts(allocsim::test::gunzip_file(trace_path("mlp_adamw.json.gz")));
  CHECK(mlp.held == 0);
  CHECK(mlp.never_completed == 0);
}

TEST_CASE("real traces: metadata and streams") {
  Scenario mlp = load_scenario(trace_path("mlp_adamw.json.gz"));
  CHECK(mlp.reference_max_allocated == 2761556480ull);
  CHECK(mlp.reference_max_reserved == 2984247296ull);
  CHECK(mlp.program.streams.size() == 1);
  const std::string side_path = trace_path("sidestream_record_stream.json.gz");
  Scenario side = load_scenario(side_path);
  // the two recorded streams, then one hold lane per block held at the same time
  const FreeFacts facts = free_facts(allocsim::test::gunzip_file(side_path));
  REQUIRE(side.program.streams.size() == 2 + facts.max_held_at_once);
  CHECK(side.program.streams[0].name == "compute");
  CHECK(side.program.streams[1].name == "stream1");
  CHECK(side.program.streams[2].name == "held0");
  CHECK(side.reference_max_reserved == 4599054336ull);
}

TEST_CASE("synthetic trace: streams, delays, holds, preexisting and leaked buffers") {
  // A's free completes 10 us later (not inside free()): held until then. The preexisting buffer's
  // free completes at once: no hold. B's free never completes: held to the end of the trace.
  const std::string text = R"({"device_traces": [[
    {"action": "alloc", "addr": 4096, "size": 1000, "stream": 77, "time_us": 100},
    {"action": "alloc", "addr": 8192, "size": 500, "stream": 0, "time_us": 110},
    {"action": "free_requested", "addr": 4096, "size": 1000, "stream": 77, "time_us": 200},
    {"action": "alloc", "addr": 12288, "size": 64, "stream": 0, "time_us": 205},
    {"action": "free_completed", "addr": 4096, "size": 1000, "stream": 77, "time_us": 210},
    {"action": "free_requested", "addr": 65536, "size": 300, "stream": 0, "time_us": 220},
    {"action": "free_completed", "addr": 65536, "size": 300, "stream": 0, "time_us": 220},
    {"action": "free_requested", "addr": 8192, "size": 500, "stream": 0, "time_us": 225},
    {"action": "alloc", "addr": 4096, "size": 200, "stream": 0, "time_us": 240}
  ]]})";
  Scenario s = torch_trace_from_json(text, "t.json");
  const Program& prog = s.program;
  REQUIRE(prog.streams.size() == 3);
  CHECK(prog.streams[1].name == "stream1");
  CHECK(prog.streams[2].name == "held0");
  REQUIRE(prog.preexisting.size() == 1);
  CHECK(prog.preexisting_bytes[0] == 300);
  CHECK(peak_live_bytes(prog) == 1800);  // 300 preexisting + 1000 + 500 (the 64 come after A is freed)
  std::vector<HostOpKind> kinds;
  for (const auto& op : prog.ops) kinds.push_back(op.kind);
  using K = HostOpKind;
  std::vector<K> want = {K::Alloc,   K::HostDelay, K::Alloc,   K::HostDelay, K::Kernel,    K::Release,
                         K::HostDelay, K::Alloc,   K::HostDelay, K::Release, K::HostDelay, K::Kernel,
                         K::Release, K::HostDelay, K::Alloc};
  REQUIRE(kinds == want);
  CHECK(prog.ops[1].duration.a == 10000);
  CHECK(prog.ops[3].duration.a == 90000);
  // A's hold: issued just before its release, read-only, on the lane, until its free_completed
  CHECK(prog.ops[4].stream == 2);
  CHECK(prog.ops[4].duration.a == 10000);
  CHECK(prog.ops[4].writes.empty());
  REQUIRE(prog.ops[4].reads.size() == 1);
  CHECK(prog.ops[4].reads[0].buffer == prog.ops[0].buffer);
  CHECK(prog.ops[5].buffer == prog.ops[0].buffer);
  CHECK(prog.ops[9].buffer == prog.preexisting[0]);
  // B's hold reuses the lane (A's ended at 110 us) and lasts to the last entry (125 -> 140 us)
  CHECK(prog.ops[11].stream == 2);
  CHECK(prog.ops[11].duration.a == 15000);
  CHECK(prog.ops[12].buffer == prog.ops[2].buffer);
  CHECK(s.description.find("1 returned at once, 1 later, 1 never") != std::string::npos);
}

TEST_CASE("synthetic trace: torch_time_scale scales the holds with the gaps") {
  const std::string text = R"({"device_traces": [[
    {"action": "alloc", "addr": 4096, "size": 1000, "stream": 5, "time_us": 0},
    {"action": "free_requested", "addr": 4096, "size": 1000, "stream": 5, "time_us": 10},
    {"action": "alloc", "addr": 8192, "size": 64, "stream": 0, "time_us": 20},
    {"action": "free_completed", "addr": 4096, "size": 1000, "stream": 5, "time_us": 50}
  ]]})";
  Params p;
  p.set("torch_time_scale", 2);
  Scenario s = torch_trace_from_json(text, "t.json", p);
  REQUIRE(count_ops(s.program, HostOpKind::Kernel) == 1);
  for (const auto& op : s.program.ops)
    if (op.kind == HostOpKind::Kernel) CHECK(op.duration.a == 80000);
}

TEST_CASE("torch trace errors") {
  CHECK(error_of_json("{\"device_traces\": [[{\"action\": \"alloc\"}]]}").find("device_traces[0][0]: missing 'addr'") != std::string::npos);
  CHECK(error_of_json("{\"device_traces\": 3}").find("device_traces: missing or not a list") != std::string::npos);
  std::string syntax = error_of_json("{\n  \"device_traces\": [,]}");
  INFO(syntax);
  CHECK(syntax.rfind("t.json:2:21: JSON syntax error", 0) == 0);
  CHECK(error_of_json(R"({"device_traces": [[{"action": "alloc", "addr": 1, "size": 1},
                                              {"action": "alloc", "addr": 1, "size": 1}]]})")
            .find("still allocated") != std::string::npos);
  CHECK(error_of_json(R"({"device_traces": [[{"action": "alloc", "addr": 1, "size": 1e30}]]})")
            .find("non-negative integer") != std::string::npos);
  Params bad;
  bad.set("torch_lag", 1);
  CHECK(error_of_json("{\"device_traces\": [[]]}", bad).find("unknown parameter") != std::string::npos);
  Params dev;
  dev.set("torch_device", 3);
  CHECK(error_of_json("{\"device_traces\": [[]]}", dev).find("has 1 device") != std::string::npos);
}
