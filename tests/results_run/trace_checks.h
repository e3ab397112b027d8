// Structural checks of a Chrome trace JSON text (shared by the writer tests and the end-to-end
// run test): parses it, REQUIREs the invariants Perfetto relies on, and returns an index.
#pragma once
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

struct TraceFlow {
  int start_tid = -1, end_tid = -1;
  double start_ts = -1, end_ts = -1;
};

struct TraceSummary {
  boost::json::value root;
  std::size_t events = 0;
  std::map<std::int64_t, std::string> thread_names;
  std::vector<const boost::json::object*> slices;  // "X"
  std::map<std::string, std::vector<std::uint64_t>> counter_values;
  std::multiset<std::pair<std::string, std::int64_t>> instants;  // (name, tid)
  std::map<std::uint64_t, TraceFlow> flows;

  const boost::json::object* find_slice(const std::string& name) const {
    for (const auto* s : slices)
      if (s->at("name").as_string() == name) return s;
    return nullptr;
  }
};

inline double number(const boost::json::value& v) {
  if (v.is_double()) return v.get_double();
  if (v.is_int64()) return double(v.get_int64());
  return double(v.as_uint64());
}

inline TraceSummary check_chrome_trace(const std::string& text) {
  TraceSummary t;
  boost::system::error_code ec;
  t.root = boost::json::parse(text, ec);
  REQUIRE(!ec);
  REQUIRE(t.root.is_object());
  const auto& events = t.root.at("traceEvents").as_array();
  double last_ts = -1;
  std::set<std::int64_t> tids_used;
  for (const auto& ev : events) {
    const auto& e = ev.as_object();
    const std::string ph(e.at("ph").as_string());
    REQUIRE(e.at("pid").is_int64());
    const std::int64_t tid = e.at("tid").as_int64();
    if (ph == "M") {
      REQUIRE(last_ts < 0);  // metadata first
      if (e.at("name").as_string() == "thread_name") t.thread_names[tid] = std::string(e.at("args").at("name").as_string());
      continue;
    }
    ++t.events;
    const double ts = number(e.at("ts"));
    REQUIRE(ts >= last_ts);  // sorted by time
    last_ts = ts;
    tids_used.insert(tid);
    if (ph == "X") {
      REQUIRE(number(e.at("dur")) >= 0);
      t.slices.push_back(&e);
    } else if (ph == "C") {
      const auto& args = e.at("args").as_object();
      t.counter_values[std::string(e.at("name").as_string())].push_back(args.at("bytes").to_number<std::uint64_t>());
    } else if (ph == "i") {
      REQUIRE(e.contains("s"));
      t.instants.insert({std::string(e.at("name").as_string()), tid});
    } else if (ph == "s") {
      const auto id = e.at("id").to_number<std::uint64_t>();
      REQUIRE(t.flows.count(id) == 0);  // ids are unique
      t.flows[id].start_tid = int(tid);
      t.flows[id].start_ts = ts;
    } else if (ph == "f") {
      const auto id = e.at("id").to_number<std::uint64_t>();
      REQUIRE(e.at("bp").as_string() == "e");
      REQUIRE(t.flows.count(id) == 1);  // an end always follows its start
      REQUIRE(t.flows[id].end_tid == -1);
      t.flows[id].end_tid = int(tid);
      t.flows[id].end_ts = ts;
    } else {
      FAIL("unexpected phase " << ph);
    }
  }
  for (auto tid : tids_used) {
    INFO("tid " << tid << " has events but no thread_name");
    CHECK(t.thread_names.count(tid) == 1);
  }
  return t;
}
