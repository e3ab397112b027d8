// Every class of bad input gives ScenarioError with the right FILE:LINE:COL and a clear message.
#include <catch2/catch.hpp>

#include "scenario_test_util.h"

using namespace allocsim;
using allocsim::test::error_of;
using allocsim::test::expect_error;


TEST_CASE("YAML syntax errors carry the parser's position") {
  expect_error("program: [\n  - a\n", "2:3", "YAML syntax error");
}

TEST_CASE("unknown keys") {
  expect_error("program: []\nbogus: 1\n", "2:1", "unknown key 'bogus' in scenario");
  expect_error("device: {memory_limt: 1MiB}\nprogram: []\n", "1:10", "unknown key 'memory_limt' in device");
  expect_error("program:\n  - kernel: {duration: 1us, colour: red}\n", "2:29", "unknown key 'colour' in 'kernel'");
  expect_error("program:\n  - launch: {}\n", "2:5", "unknown op 'launch'");
}

TEST_CASE("wrong types") {
  expect_error("semaphore: [1]\nprogram: []\n", "1:12", "expected a number for 'semaphore'");
  expect_error("device: 5\nprogram: []\n", "1:9", "expected a map for 'device'");
  expect_error("program: {a: 1}\n", "1:10", "expected a list of ops");
  expect_error("device: {allow_growth: maybe}\nprogram: []\n", "1:24", "expected true or false");
  expect_error("program:\n  - alloc: {buffer: A, size: lots}\n", "2:30", "unexpected name 'lots'");
  expect_error("program:\n  - alloc: {buffer: A, size: 5us}\n", "2:30", "unit 'us' is not allowed here");
}

TEST_CASE("negative durations") {
  expect_error("program:\n  - host_delay: -5us\n", "2:17", "negative duration");
  expect_error("program:\n  - host_delay: {uniform: [1us, -2us]}\n", "2:33", "negative duration");
  expect_error("platform: {callback_latency_ns: -1}\nprogram: []\n", "1:33", "negative duration");
}

TEST_CASE("size overflow: more than 2^48 bytes or arithmetic overflow") {
  expect_error("program:\n  - alloc: {buffer: A, size: 1024TiB}\n", "2:30", "size overflow");
  expect_error("program:\n  - alloc: {buffer: A, size: \"1e300 * 1e300\"}\n", "2:30", "arithmetic overflow");
  expect_error("program:\n  - alloc: {buffer: A, size: {uniform_int: [1, 300TiB]}}\n", "2:48", "size overflow");
}

TEST_CASE("buffers used before allocation or after release") {
  expect_error("program:\n  - kernel: {duration: 1us, reads: [A]}\n", "2:37", "buffer 'A' is used before it is allocated");
  expect_error("program:\n  - alloc: {buffer: A, size: 1KiB}\n  - release: A\n  - kernel: {duration: 1us, writes: [A]}\n",
               "4:38", "buffer 'A' is used after it is released");
  expect_error("program:\n  - alloc: {buffer: A, size: 1KiB}\n  - release: A\n  - release: A\n", "4:14",
               "used after it is released");
  expect_error("program:\n  - alloc: {buffer: A, size: 1KiB}\n  - alloc: {buffer: A, size: 1KiB}\n", "3:5",
               "allocated again while still live");
  expect_error("program:\n  - alloc: {buffer: A, size: 1KiB}\n  - kernel: {duration: 1us, reads: [{buffer: A, offset: 1KiB}]}\n",
               "3:37", "outside its 1024 bytes");
}

TEST_CASE("waits on events that are never recorded") {
  expect_error("program:\n  - wait: {event: E, stream: autotune}\n", "2:19", "event 'E' is never recorded");
  expect_error("program:\n  - event_sync: F\n", "2:17", "event 'F' is never recorded");
}

TEST_CASE("unknown streams and parameters") {
  expect_error("program:\n  - kernel: {stream: d2h, duration: 1us}\n", "2:22", "unknown stream 'd2h'");
  expect_error("program:\n  - host_delay: $nope\n", "2:17", "unknown parameter 'nope'");
}

TEST_CASE("loops that would expand past the op limit fail at once") {
  expect_error("program:\n  - repeat: 1000000\n    body:\n      - repeat: 1000000\n        body: [begin_execution]\n",
               "2:5", "expands past the limit");
  expect_error("program:\n  - repeat: 100000000\n    body: []\n", "2:13", "too large");
  // nested loops whose inner count depends on the loop variable: caught while expanding
  LoadLimits small;
  small.max_ops = 1000;
  std::string msg = error_of(
      "program:\n  - repeat: 100\n    var: i\n    body:\n      - repeat: $i\n        body: [device_sync]\n", {}, small);
  INFO(msg);
  CHECK(msg.find("expands past the limit of 1000 ops") != std::string::npos);
}

TEST_CASE("the error class carries file, line and column separately") {
  try {
    load_scenario_yaml("program:\n  - host_delay: -1\n", "x.yaml");
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(e.file() == "x.yaml");
    CHECK(e.line() == 2);
    CHECK(e.column() == 17);
    CHECK(e.detail().find("negative duration") == 0);
  }
}

TEST_CASE("a missing scenario names the built-ins") {
  try {
    load_scenario("no-such-scenario");
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()).find("seed-repro") != std::string::npos);
  }
}
