// The host-mutex ops of the YAML format (docs/scenarios.md, "Host mutexes and host callbacks"):
// what they compile to, and every bad use as a FILE:LINE:COL error.
#include <catch2/catch.hpp>

#include "scenario_test_util.h"

using namespace allocsim;
using allocsim::test::error_of;
using allocsim::test::expect_error;
using allocsim::test::load_text;


TEST_CASE("lock, unlock and host_callback compile to host ops on named mutexes") {
  const Scenario s = load_text(
      "streams: [compute, side]\n"
      "params: {n: 2}\n"
      "program:\n"
      "  - lock: mu\n"
      "  - host_callback: {stream: side, locks: [a$n, mu], duration: 3us}\n"
      "  - unlock: mu\n"
      "  - host_callback: {locks: mu}\n"
      "  - host_callback: {}\n");
  const Program& p = s.program;
  REQUIRE(p.mutex_names == std::vector<std::string>{"mu", "a2"});
  REQUIRE(p.ops.size() == 5);
  CHECK(p.ops[0].kind == HostOpKind::Lock);
  CHECK(p.ops[0].mutexes == std::vector<MutexId>{0});
  CHECK(p.ops[0].source_line == 4);
  CHECK(p.ops[1].kind == HostOpKind::HostCallback);
  CHECK(p.ops[1].stream == 1);
  CHECK(p.ops[1].mutexes == std::vector<MutexId>{1, 0});
  CHECK(p.ops[1].duration.a == 3000);
  CHECK(p.ops[2].kind == HostOpKind::Unlock);
  CHECK(p.ops[3].stream == 0);  // default: compute
  CHECK(p.ops[3].mutexes == std::vector<MutexId>{0});
  CHECK(p.ops[4].mutexes.empty());
  CHECK(p.ops[4].duration.a == 0);
}

TEST_CASE("a lock inside a loop must be unlocked in the same iteration") {
  CHECK_NOTHROW(load_text("program:\n  - repeat: 3\n    body:\n      - lock: mu\n      - unlock: mu\n"));
  expect_error("program:\n  - repeat: 2\n    body:\n      - lock: mu\n", "4:15", "locked again while the host already holds it");
}

TEST_CASE("bad lock and unlock input") {
  expect_error("program:\n  - lock: mu\n  - lock: mu\n  - unlock: mu\n", "3:11",
               "mutex 'mu' is locked again while the host already holds it");
  expect_error("program:\n  - unlock: mu\n", "2:13", "mutex 'mu' is unlocked but the host does not hold it");
  expect_error("program:\n  - lock: mu\n  - unlock: mu\n  - unlock: mu\n", "4:13", "the host does not hold it");
  expect_error("program:\n  - lock: mu\n  - device_sync\n", "2:11",
               "mutex 'mu' is locked here and still held when the program ends");
  expect_error("program:\n  - lock\n", "2:5", "'lock' needs a mutex name");
  expect_error("program:\n  - unlock: {mutex: mu}\n", "2:13", "expected a text value for 'unlock', got a map");
  expect_error("program:\n  - lock: [a, b]\n", "2:11", "expected a text value for 'lock', got a list");
}

TEST_CASE("bad host_callback input") {
  expect_error("program:\n  - host_callback: {stream: nope}\n", "2:29", "unknown stream 'nope'");
  expect_error("program:\n  - host_callback: {locks: [a, a]}\n", "2:32", "mutex 'a' is listed twice in 'locks'");
  expect_error("program:\n  - host_callback: {locks: {a: 1}}\n", "2:28", "expected a mutex name or a list of them for 'locks'");
  expect_error("program:\n  - host_callback: {duration: -1us}\n", "2:31", "negative duration");
  expect_error("program:\n  - host_callback: {mutexes: [a]}\n", "2:21", "unknown key 'mutexes' in 'host_callback'");
  expect_error("program:\n  - host_callback: mu\n", "2:5", "'host_callback' expects a map of arguments");
}
