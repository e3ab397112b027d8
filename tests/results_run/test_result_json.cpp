// result_to_json / result_columns / result_row: the docs/design.md section 6 contract, checked on a
// hand-filled RunResult with distinct values so a field wired to the wrong member shows up.
#include <algorithm>
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <set>

#include "allocsim/results/result_json.h"

using namespace allocsim;

namespace {

RunResult sample_result() {
  RunResult r;
  r.scenario = "seed-repro";
  r.policy = "immediate";
  r.guard = "none";
  r.semaphore = 3;
  r.seed = 18446744073709551615ull;  // max uint64 must survive exactly
  r.completed = false;
  r.error = "deadlock: host waits for semaphore";
  r.races_latent = 11;
  r.races_manifest = 12;
  r.double_frees = 13;
  r.use_after_release = 14;
  r.unknown_frees = 15;
  r.callbacks_after_pool_destroyed = 16;
  r.leaks = 17;
  r.peak_bytes_in_use = 21;
  r.peak_live_bytes = 22;
  r.peak_pending_bytes = 23;
  r.peak_pool_bytes = 24;
  r.peak_in_use_time = 25;
  r.peak_live_time = 26;
  r.peak_pending_time = 27;
  r.peak_pool_time = 28;
  r.makespan_ns = 31;
  r.host_stall_ns = 32;
  r.host_blocked_policy_ns = 33;
  r.host_blocked_semaphore_ns = 34;
  r.host_blocked_oom_ns = 35;
  r.host_blocked_sync_ns = 36;
  r.device_idle_ns = 37;
  r.allocs = 41;
  r.frees = 42;
  r.callbacks = 43;
  r.ooms = 44;
  r.fallbacks = 45;
  r.warnings = {"callback enqueue failed, fell back to immediate", "second, with \"quotes\""};
  Finding f;
  f.kind = FindingKind::Latent;
  f.range = {4096, 256};
  f.first.alloc = 0;
  f.first.alloc_bytes = 1024;
  f.first.alloc_stream = "compute";
  f.first.op = "kernel";
  f.first.stream = "compute";
  f.first.write = true;
  f.first.start = 100;
  f.first.end = 200;
  f.first.release_time = 150;
  f.second.alloc = 1;
  f.second.op = "memset";
  f.second.stream = "autotune";
  f.second.write = true;
  f.action_between = "immediate free at t=150";
  r.findings.push_back(f);
  return r;
}

const boost::json::value& at(const boost::json::object& o, std::initializer_list<const char*> path) {
  const boost::json::object* cur = &o;
  const boost::json::value* v = nullptr;
  for (const char* key : path) {
    REQUIRE(cur != nullptr);
    v = cur->if_contains(key);
    INFO("key " << key);
    REQUIRE(v != nullptr);
    cur = v->if_object();
  }
  return *v;
}

std::uint64_t as_u64(const boost::json::value& v) {
  if (v.is_uint64()) return v.get_uint64();
  REQUIRE(v.is_int64());
  REQUIRE(v.get_int64() >= 0);
  return std::uint64_t(v.get_int64());
}

}  // namespace

TEST_CASE("result JSON has every section-6 key with its value and type", "[result_json]") {
  const RunResult r = sample_result();
  const boost::json::object o = result_to_json(r);
  CHECK(at(o, {"scenario"}).as_string() == "seed-repro");
  CHECK(at(o, {"policy"}).as_string() == "immediate");
  CHECK(at(o, {"guard"}).as_string() == "none");
  CHECK(as_u64(at(o, {"semaphore"})) == 3);
  CHECK(as_u64(at(o, {"seed"})) == 18446744073709551615ull);
  CHECK(as_u64(at(o, {"races", "latent"})) == 11);
  CHECK(as_u64(at(o, {"races", "manifest"})) == 12);
  CHECK(as_u64(at(o, {"memory", "peak_bytes_in_use"})) == 21);
  CHECK(as_u64(at(o, {"memory", "peak_live_bytes"})) == 22);
  CHECK(as_u64(at(o, {"memory", "peak_pending_bytes"})) == 23);
  CHECK(as_u64(at(o, {"memory", "peak_pool_bytes"})) == 24);
  CHECK(as_u64(at(o, {"time", "makespan_ns"})) == 31);
  CHECK(as_u64(at(o, {"time", "host_stall_ns"})) == 32);
  CHECK(as_u64(at(o, {"counts", "allocs"})) == 41);
  CHECK(as_u64(at(o, {"counts", "frees"})) == 42);
  CHECK(as_u64(at(o, {"counts", "callbacks"})) == 43);
  CHECK(as_u64(at(o, {"counts", "ooms"})) == 44);
  CHECK(as_u64(at(o, {"counts", "fallbacks"})) == 45);
}

TEST_CASE("result JSON carries completion, lifetime counts, peak times, warnings and findings", "[result_json]") {
  const boost::json::object o = result_to_json(sample_result());
  CHECK(at(o, {"completed"}).as_bool() == false);
  CHECK(at(o, {"error"}).as_string() == "deadlock: host waits for semaphore");
  CHECK(as_u64(at(o, {"races", "double_frees"})) == 13);
  CHECK(as_u64(at(o, {"races", "use_after_release"})) == 14);
  CHECK(as_u64(at(o, {"races", "unknown_frees"})) == 15);
  CHECK(as_u64(at(o, {"races", "callbacks_after_pool_destroyed"})) == 16);
  CHECK(as_u64(at(o, {"races", "leaks"})) == 17);
  CHECK(as_u64(at(o, {"memory", "peak_pool_time_ns"})) == 28);
  CHECK(as_u64(at(o, {"time", "host_blocked_policy_ns"})) == 33);
  CHECK(as_u64(at(o, {"time", "host_blocked_semaphore_ns"})) == 34);
  CHECK(as_u64(at(o, {"time", "host_blocked_oom_ns"})) == 35);
  CHECK(as_u64(at(o, {"time", "host_blocked_sync_ns"})) == 36);
  CHECK(as_u64(at(o, {"time", "device_idle_ns"})) == 37);
  const auto& warnings = at(o, {"warnings"}).as_array();
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[1].as_string() == "second, with \"quotes\"");
  const auto& findings = at(o, {"findings"}).as_array();
  REQUIRE(findings.size() == 1);
  const auto& f = findings[0].as_object();
  CHECK(f.at("kind").as_string() == "latent");
  CHECK(as_u64(f.at("range").as_object().at("begin")) == 4096);
  CHECK(f.at("first").as_object().at("write").as_bool());
  CHECK(f.at("first").as_object().at("release_time_ns").as_int64() == 150);
  CHECK(f.at("second").as_object().at("stream").as_string() == "autotune");
  CHECK(f.at("action_between").as_string() == "immediate free at t=150");
}

TEST_CASE("findings name buffers when the program is given", "[result_json]") {
  Program p;
  p.buffer_names = {"X", "scratch"};
  const boost::json::object o = result_to_json(sample_result(), &p);
  const auto& f = o.at("findings").as_array()[0].as_object();
  CHECK(f.at("first").as_object().at("buffer").as_string() == "X");
  CHECK(f.at("second").as_object().at("buffer").as_string() == "scratch");
  // Without the program there is no "buffer" key rather than an empty one.
  CHECK(result_to_json(sample_result()).at("findings").as_array()[0].as_object().if_contains("buffer") == nullptr);
}

TEST_CASE("pretty_json parses back to the same value and is deterministic", "[result_json]") {
  const boost::json::value v = result_to_json(sample_result());
  const std::string text = pretty_json(v);
  CHECK(boost::json::parse(text) == v);
  CHECK(text == pretty_json(v));
  CHECK(text.back() == '\n');
  CHECK(text.find("\n  \"races\": {\n    \"latent\": 11") != std::string::npos);
}

TEST_CASE("CSV columns start with section 6 in contract order - rows line up", "[result_json]") {
  const std::vector<std::string> contract = {
      "scenario", "policy", "guard", "semaphore", "seed", "races.latent", "races.manifest",
      "memory.peak_bytes_in_use", "memory.peak_live_bytes", "memory.peak_pending_bytes", "memory.peak_pool_bytes",
      "time.makespan_ns", "time.host_stall_ns", "counts.allocs", "counts.frees", "counts.callbacks",
      "counts.ooms", "counts.fallbacks"};
  const auto& cols = result_columns();
  REQUIRE(cols.size() >= contract.size());
  CHECK(std::vector<std::string>(cols.begin(), cols.begin() + long(contract.size())) == contract);
  CHECK(std::set<std::string>(cols.begin(), cols.end()).size() == cols.size());  // no duplicates

  const RunResult r = sample_result();
  const auto row = result_row(r);
  REQUIRE(row.size() == cols.size());
  // Every dotted column that exists in the JSON has the same value there (no drift between the two).
  const boost::json::object o = result_to_json(r);
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const std::string& c = cols[i];
    const auto dot = c.find('.');
    const boost::json::value* v =
        dot == std::string::npos ? o.if_contains(c) : o.at(c.substr(0, dot)).as_object().if_contains(c.substr(dot + 1));
    if (!v) continue;  // e.g. "warnings" is a count in the CSV, a list in the JSON
    INFO("column " << c);
    if (v->is_string()) CHECK(row[i] == std::string(v->get_string()));
    else if (v->is_bool()) CHECK(row[i] == (v->get_bool() ? "true" : "false"));
    else if (!v->is_array()) CHECK(row[i] == boost::json::serialize(*v));
  }
  CHECK(row[0] == "seed-repro");
  CHECK(row[4] == "18446744073709551615");
}

TEST_CASE("csv_field quotes only when needed", "[result_json]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
}

TEST_CASE("finding kinds: one table of names, both ways - each count under its kind's key", "[result_json]") {
  std::set<std::string_view> names, keys;
  for (std::size_t i = 0; i < kFindingKinds; ++i) {
    const FindingKind k = FindingKind(i);
    CHECK(parse_finding_kind(finding_kind_name(k)) == k);
    names.insert(finding_kind_name(k));
    keys.insert(kFindingKindNames[i].count_key);
  }
  CHECK(names.size() == kFindingKinds);
  CHECK(keys.size() == kFindingKinds);
  CHECK_FALSE(parse_finding_kind("leaks").has_value());  // a count key is not a kind's name
  CHECK_FALSE(parse_finding_kind("").has_value());

  // sample_result() sets the seven counts to 11..17 through their fields, in kind order
  const RunResult r = sample_result();
  const boost::json::object o = result_to_json(r);
  const std::vector<std::string>& columns = result_columns();
  const std::vector<std::string> row = result_row(r);
  for (const FindingKindNames& k : kFindingKindNames) {
    const std::uint64_t want = 11 + std::uint64_t(k.kind);
    const std::string key(k.count_key);
    INFO(k.name);
    CHECK(r.count(k.kind) == want);
    CHECK(as_u64(at(o, {"races", key.c_str()})) == want);
    auto c = std::find(columns.begin(), columns.end(), "races." + key);
    REQUIRE(c != columns.end());
    CHECK(row[std::size_t(c - columns.begin())] == std::to_string(want));
  }
}
