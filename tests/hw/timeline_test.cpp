// allocsim-hw validate --timeline: decoding the device's stamps, the simulator's spans, the JSON.
#include <catch2/catch.hpp>

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "allocsim/hw/timeline.h"
#include "allocsim/results/atomic_file.h"

using namespace allocsim;

TEST_CASE("device_timeline decodes the op kernel's stamps relative to the first start") {
  // op 0 on compute 1000..1500 (reads checked by 1100, writes from 1400), op 1 on autotune
  // 1200..1300 without phase stamps, op 2 never ran, op 3 past the buffer.
  const std::vector<unsigned long long> stamps = {~1000ull, 1500, 1100, ~1400ull, ~1200ull, 1300, 0, 0, 0, 0};
  const std::vector<hw::LaunchedOp> ops = {{"compute", "conv", DeviceOpKind::Kernel, 4096, 8192},
                                           {"autotune", "memset", DeviceOpKind::Memset},
                                           {"compute", "kernel", DeviceOpKind::Kernel},
                                           {"compute", "late", DeviceOpKind::Kernel}};
  std::uint64_t dropped = 99;
  const std::vector<hw::TimelineOp> t = hw::device_timeline(stamps, ops, 1.0, dropped);
  CHECK(dropped == 2);
  REQUIRE(t.size() == 2);
  CHECK(t[0].seq == 0);
  CHECK(t[0].stream == "compute");
  CHECK(t[0].label == "conv");
  CHECK(t[0].kind == "kernel");
  CHECK(t[0].start_ns == 0);
  CHECK(t[0].end_ns == 500);
  CHECK(t[0].has_phases);
  CHECK(t[0].reads_done_ns == 100);
  CHECK(t[0].writes_start_ns == 400);
  CHECK(t[0].read_bytes == 4096);
  CHECK(t[0].write_bytes == 8192);
  CHECK(t[1].seq == 1);
  CHECK_FALSE(t[1].has_phases);
  CHECK(t[1].kind == "memset");
  CHECK(t[1].start_ns == 200);
  CHECK(t[1].end_ns == 300);

  SECTION("ticks are scaled to ns") {
    const auto scaled = hw::device_timeline(stamps, ops, 10.0, dropped);
    REQUIRE(scaled.size() == 2);
    CHECK(scaled[0].end_ns == 5000);
    CHECK(scaled[1].start_ns == 2000);
  }
  SECTION("sorted by start, whatever the launch order") {
    const std::vector<unsigned long long> later_first = {~5000ull, 6000, 0, 0, ~4000ull, 4500, 0, 0};
    const auto s = hw::device_timeline(later_first, {ops[0], ops[1]}, 1.0, dropped);
    CHECK(dropped == 0);
    REQUIRE(s.size() == 2);
    CHECK(s[0].seq == 1);
    CHECK(s[0].start_ns == 0);
    CHECK(s[1].seq == 0);
    CHECK(s[1].start_ns == 1000);
    CHECK(s[1].end_ns == 2000);
  }
  SECTION("nothing recorded") {
    CHECK(hw::device_timeline({}, ops, 1.0, dropped).empty());
    CHECK(dropped == 4);
  }
}

TEST_CASE("SimTimelineObserver names streams and makes times relative") {
  hw::SimTimelineObserver obs;
  obs.on_stream_created(0, "compute");
  obs.on_stream_created(1, "autotune");
  DeviceOpSpan a;
  a.op_seq = 7;
  a.stream = 1;
  a.kind = DeviceOpKind::Memset;
  a.label = "memset";
  a.start = 3000;
  a.end = 3100;
  DeviceOpSpan b = a;
  b.op_seq = 3;
  b.stream = 0;
  b.kind = DeviceOpKind::Kernel;
  b.label = "conv";
  b.start = 2000;
  b.end = 4000;
  DeviceOpSpan c = b;
  c.stream = 5;  // a stream the observer never heard of: its id
  c.op_seq = 9;
  c.start = 5000;
  c.end = 5001;
  obs.on_device_op(a);
  obs.on_device_op(b);
  obs.on_device_op(c);
  const auto ops = obs.ops();
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].seq == 3);
  CHECK(ops[0].stream == "compute");
  CHECK(ops[0].start_ns == 0);
  CHECK(ops[0].end_ns == 2000);
  CHECK(ops[1].stream == "autotune");
  CHECK(ops[1].label == "memset");
  CHECK(ops[1].kind == "memset");
  CHECK(ops[1].start_ns == 1000);
  CHECK(ops[2].stream == "5");
}

TEST_CASE("timeline file: schema and atomic write") {
  hw::TimelineFile f;
  f.scenario = "conv-autotune";
  f.semaphore = 2;
  f.seed = 42;
  hw::TimelineCombination c;
  c.policy = "immediate";
  c.guard = "none";
  c.corrupted_words = 12;
  c.corrupted_executions = {3, 7};
  c.dropped = 1;
  c.ops = {{0, "compute", "conv", "kernel", 0, 500}};
  c.sim_ops = {{0, "compute", "conv", "kernel", 0, 450}, {1, "autotune", "memset", "memset", 10, 20}};
  c.callbacks = {{100, 300, 320, 330, 340, "deferred-callback", "callback:compute"}};
  c.semaphore_waits = {{50, 345}, {400, 400}};
  f.combinations.push_back(c);
  const boost::json::value v = boost::json::parse(hw::timeline_json(f));
  const auto& root = v.as_object();
  CHECK(root.at("scenario").as_string() == "conv-autotune");
  CHECK(root.at("semaphore").to_number<int>() == 2);
  CHECK(root.at("seed").to_number<std::uint64_t>() == 42);
  const auto& combos = root.at("combinations").as_array();
  REQUIRE(combos.size() == 1);
  const auto& o = combos[0].as_object();
  CHECK(o.at("policy").as_string() == "immediate");
  CHECK(o.at("guard").as_string() == "none");
  CHECK(o.at("trial").to_number<int>() == 0);
  CHECK(o.at("corrupted_words").to_number<std::uint64_t>() == 12);
  CHECK(o.at("corrupted_executions").as_array().size() == 2);
  CHECK(o.at("dropped").to_number<int>() == 1);
  const auto& ops = o.at("ops").as_array();
  REQUIRE(ops.size() == 1);
  const auto& op = ops[0].as_object();
  CHECK(op.at("stream").as_string() == "compute");
  CHECK(op.at("label").as_string() == "conv");
  CHECK(op.at("kind").as_string() == "kernel");
  CHECK(op.at("start_ns").to_number<std::int64_t>() == 0);
  CHECK(op.at("end_ns").to_number<std::int64_t>() == 500);
  const auto& sim = o.at("sim_ops").as_array();
  REQUIRE(sim.size() == 2);
  CHECK(sim[1].as_object().at("stream").as_string() == "autotune");
  CHECK(sim[1].as_object().at("seq").to_number<int>() == 1);
  const auto& cbs = o.at("host_callbacks").as_array();
  REQUIRE(cbs.size() == 1);
  const auto& cb = cbs[0].as_object();
  CHECK(cb.at("enqueued_ns").to_number<std::int64_t>() == 100);
  CHECK(cb.at("handed_over_ns").to_number<std::int64_t>() == 300);
  CHECK(cb.at("taken_up_ns").to_number<std::int64_t>() == 320);
  CHECK(cb.at("locked_ns").to_number<std::int64_t>() == 330);
  CHECK(cb.at("done_ns").to_number<std::int64_t>() == 340);
  CHECK(cb.at("what").as_string() == "deferred-callback");
  CHECK(cb.at("stream").as_string() == "callback:compute");
  const auto& waits = o.at("semaphore_waits").as_array();
  REQUIRE(waits.size() == 2);
  CHECK(waits[0].as_object().at("since_ns").to_number<std::int64_t>() == 50);
  CHECK(waits[0].as_object().at("acquired_ns").to_number<std::int64_t>() == 345);
  CHECK(waits[1].as_object().at("acquired_ns").to_number<std::int64_t>() == 400);

  const auto dir = std::filesystem::temp_directory_path() / "allocsim-timeline-test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "timeline.json").string();
  hw::write_timeline_file(path, f);
  CHECK(read_whole_file(path) == hw::timeline_json(f));
  std::filesystem::remove_all(dir);
}

TEST_CASE("callback log: a header line, then one line per trial with buffers by name") {
  hw::CallbackLog log;
  log.scenario = "seed-repro";
  log.semaphore = 1;
  log.buffer_names = {"X", "Y", "scratch"};
  hw::CallbackLogTrial t;
  t.policy = "deferred-callback";
  t.guard = "wait-compute";
  t.trial = 7;
  t.peak_bytes_in_use = 12582912;
  t.peak_in_use_at_ns = 900;
  t.callbacks = {{100, 300, 320, 330, 340, "semaphore-release", "callback:compute"}};
  t.semaphore_waits = {{50, 60}};
  t.memory = {{900, 2, true, 4194304}, {950, 2, false, 4194304}, {960, 9, true, 16}};
  log.trials = {t, t};
  log.trials[1].trial = 8;
  const std::string text = hw::callback_log_lines(log);
  std::vector<boost::json::value> lines;
  std::size_t from = 0;
  for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
    lines.push_back(boost::json::parse(text.substr(from, nl - from)));
  CHECK(from == text.size());  // every line ends in a newline
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].as_object().at("scenario").as_string() == "seed-repro");
  CHECK(lines[0].as_object().at("semaphore").to_number<int>() == 1);
  const auto& o = lines[1].as_object();
  CHECK(o.at("policy").as_string() == "deferred-callback");
  CHECK(o.at("guard").as_string() == "wait-compute");
  CHECK(o.at("trial").to_number<int>() == 7);
  CHECK(lines[2].as_object().at("trial").to_number<int>() == 8);
  CHECK(o.at("peak_bytes_in_use").to_number<std::uint64_t>() == 12582912);
  CHECK(o.at("peak_in_use_at_ns").to_number<std::int64_t>() == 900);
  CHECK(o.at("host_callbacks").as_array()[0].as_object().at("what").as_string() == "semaphore-release");
  CHECK(o.at("semaphore_waits").as_array()[0].as_object().at("acquired_ns").to_number<std::int64_t>() == 60);
  const auto& memory = o.at("memory").as_array();
  REQUIRE(memory.size() == 3);
  CHECK(memory[0].as_object().at("buffer").as_string() == "scratch");
  CHECK(memory[0].as_object().at("allocated").as_bool());
  CHECK_FALSE(memory[1].as_object().at("allocated").as_bool());
  CHECK(memory[1].as_object().at("at_ns").to_number<std::int64_t>() == 950);
  CHECK(memory[2].as_object().at("buffer").as_string() == "9");  // an id the program does not name
  CHECK(memory[2].as_object().at("bytes").to_number<std::uint64_t>() == 16);

  const auto dir = std::filesystem::temp_directory_path() / "allocsim-callback-log-test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "log.jsonl").string();
  hw::write_callback_log(path, log);
  CHECK(read_whole_file(path) == text);
  std::filesystem::remove_all(dir);
}
