// PyTorch snapshot replay: the two real H200 traces, and small synthetic traces for each rule
// (stream mapping, last-use lag, frees of addresses allocated before the recording, leaks).
#include <catch2/catch.hpp>

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <boost/json.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "allocsim/scenarios/torch_trace.h"
#include "scenario_test_util.h"
#include "test_inputs.h"

using namespace allocsim;
using allocsim::test::count_ops;
using allocsim::test::peak_live_bytes;

namespace {

std::string trace_path(const std::string& name) { return allocsim::test::require_data("torch_traces/" + name); }

std::string gunzip_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  boost::iostreams::filtering_istream in;
  in.push(boost::iostreams::gzip_decompressor());
  in.push(f);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
    std::uint64_t expected = trace_peak_requested(gunzip_file(path));
    CHECK(expected > 0);
    CHECK(peak_live_bytes(s.program) == expected);
    CHECK(s.reference_max_allocated > 0);
    CHECK(s.reference_max_reserved >= s.reference_max_allocated);
    CHECK(count_ops(s.program, HostOpKind::Alloc) > 100);
    // every release follows a last-use kernel on that buffer
    CHECK(count_ops(s.program, HostOpKind::Kernel) == count_ops(s.program, HostOpKind::Release));
  }
}

TEST_CASE("real traces: metadata and streams") {
  Scenario mlp = load_scenario(trace_path("mlp_adamw.json.gz"));
  CHECK(mlp.reference_max_allocated == 2761556480ull);
  CHECK(mlp.reference_max_reserved == 2984247296ull);
  CHECK(mlp.program.streams.size() == 1);
  Scenario side = load_scenario(trace_path("sidestream_record_stream.json.gz"));
  REQUIRE(side.program.streams.size() == 2);
  CHECK(side.program.streams[0].name == "compute");
  CHECK(side.program.streams[1].name == "stream1");
  CHECK(side.reference_max_reserved == 4599054336ull);
}

TEST_CASE("synthetic trace: streams, delays, lag, preexisting and leaked buffers") {
  const std::string text = R"({"device_traces": [[
    {"action": "alloc", "addr": 4096, "size": 1000, "stream": 77, "time_us": 100},
    {"action": "alloc", "addr": 8192, "size": 500, "stream": 0, "time_us": 110},
    {"action": "free_requested", "addr": 4096, "size": 1000, "stream": 77, "time_us": 200},
    {"action": "free_completed", "addr": 4096, "size": 1000, "stream": 77, "time_us": 210},
    {"action": "free_requested", "addr": 65536, "size": 300, "stream": 0, "time_us": 220},
    {"action": "alloc", "addr": 4096, "size": 200, "stream": 0, "time_us": 230}
  ]]})";
  Params p;
  p.set("torch_last_use_lag_us", 30);
  Scenario s = torch_trace_from_json(text, "t.json", p);
  const Program& prog = s.program;
  REQUIRE(prog.streams.size() == 2);
  CHECK(prog.streams[1].name == "stream1");
  REQUIRE(prog.preexisting.size() == 1);
  CHECK(prog.preexisting_bytes[0] == 300);
  CHECK(peak_live_bytes(prog) == 1800);  // 300 preexisting + 1000 + 500
  // clock relative to the first entry: allocs at 0 and 10 us, last uses at 200-30-100 = 70 us and
  // 220-30-100 = 90 us, releases at 100 and 120 us, the never-freed alloc at 130 us
  std::vector<HostOpKind> kinds;
  for (const auto& op : prog.ops) kinds.push_back(op.kind);
  using K = HostOpKind;
  std::vector<K> want = {K::Alloc,  K::HostDelay, K::Alloc,   K::HostDelay, K::Kernel,
                         K::HostDelay, K::Kernel, K::HostDelay, K::Release, K::HostDelay,
                         K::Release, K::HostDelay, K::Alloc};
  REQUIRE(kinds == want);
  CHECK(prog.ops[1].duration.a == 10000);
  CHECK(prog.ops[3].duration.a == 60000);
  CHECK(prog.ops[4].stream == 1);  // last use on the buffer's own stream (77 -> stream1)
  CHECK(prog.ops[6].stream == 0);  // the preexisting buffer's free was on stream 0
  CHECK(prog.ops[8].buffer == prog.ops[0].buffer);
  CHECK(prog.ops[10].buffer == prog.preexisting[0]);
  CHECK(prog.ops[4].duration.a == 20000);  // torch_kernel_us default 20
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
