// The schedule file (core/schedule.h, docs/explore.md): parse / write round trip, and every way a
// file is refused.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "allocsim/core/schedule.h"

using namespace allocsim;

namespace {

/// The example in docs/explore.md, with a second delay of the other agents and an outcome.
const char* kExample = R"({
  "allocsim_schedule": 1,
  "scenario": "seed-repro",
  "policy": "immediate",
  "guard": "none",
  "semaphore": 32,
  "seed": 1,
  "set": {"trials": "20", "fill_ns": 4000},
  "delays": [
    {"hold": {"agent": "stream", "stream": "compute", "op": 2},
     "until": {"agent": "stream", "stream": "autotune", "op": 0},
     "held_ns": 1003000},
    {"hold": {"agent": "host", "op": 7}, "until": {"agent": "callback", "callback": 1}}
  ],
  "outcome": {"verdict": "manifest race", "finding": "..."}
})";

/// kExample with `from` replaced by `to` (which must occur).
std::string edited(const std::string& from, const std::string& to) {
  std::string s = kExample;
  const std::size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  try {
    parse_schedule(text, "w.json");
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("parse_schedule reads every field of the documented file") {
  const Schedule s = parse_schedule(kExample, "w.json");
  CHECK(s.scenario == "seed-repro");
  CHECK(s.policy == "immediate");
  CHECK(s.guard == "none");
  CHECK(s.semaphore == 32);
  CHECK(s.seed == 1);
  CHECK(s.set == std::map<std::string, std::string>{{"fill_ns", "4000"}, {"trials", "20"}});
  REQUIRE(s.delays.size() == 2);
  CHECK(s.delays[0].hold == StepLocator{StepLocator::Agent::Stream, "compute", 2});
  CHECK(s.delays[0].until == StepLocator{StepLocator::Agent::Stream, "autotune", 0});
  CHECK(s.delays[0].held_ns == 1003000);
  CHECK(s.delays[1].hold == StepLocator{StepLocator::Agent::Host, "", 7});
  CHECK(s.delays[1].until == StepLocator{StepLocator::Agent::Callback, "", 1});
  CHECK_FALSE(s.delays[1].held_ns);
  CHECK(s.outcome_json == R"({"verdict":"manifest race","finding":"..."})");
}

TEST_CASE("write_schedule round-trips and is deterministic") {
  const Schedule s = parse_schedule(kExample, "w.json");
  const std::string text = write_schedule(s);
  CHECK(parse_schedule(text, "written") == s);
  CHECK(write_schedule(parse_schedule(text, "written")) == text);
  // Pretty-printed in a fixed key order: the version first, one line per top-level key.
  CHECK(text.rfind("{\n  \"allocsim_schedule\": 1,\n  \"scenario\": \"seed-repro\",\n", 0) == 0);
  CHECK(text.find("\"set\": {\"fill_ns\": \"4000\", \"trials\": \"20\"}") != std::string::npos);
  CHECK(text.back() == '\n');
}

TEST_CASE("write_schedule writes an empty schedule that parses back") {
  Schedule s;
  s.scenario = "a \"quoted\" name";
  s.policy = "deferred";
  s.guard = "none";
  s.semaphore = 1;
  s.seed = 42;
  const std::string text = write_schedule(s);
  CHECK(parse_schedule(text, "empty") == s);
  CHECK(text.find("\"outcome\"") == std::string::npos);
}

TEST_CASE("the committed seed-repro witness example parses") {
  std::ifstream in(std::string(ALLOCSIM_SOURCE_DIR) + "/hw/scripts/seed-repro-witness.example.json");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const Schedule s = parse_schedule(ss.str(), "example");
  CHECK(s.scenario == "seed-repro");
  CHECK(s.semaphore == 32);
  REQUIRE(s.delays.size() == 1);
  // Execution t = 3: its copy is compute op 4t + 2, its memset autotune op t.
  CHECK(s.delays[0].hold == StepLocator{StepLocator::Agent::Stream, "compute", 14});
  CHECK(s.delays[0].until == StepLocator{StepLocator::Agent::Stream, "autotune", 3});
}

TEST_CASE("parse_schedule refuses a bad file with a message naming what is wrong") {
  CHECK_THAT(error_of("{"), Catch::Contains("w.json: not valid JSON"));
  CHECK_THAT(error_of("[]"), Catch::Contains("must be a JSON object"));
  CHECK_THAT(error_of(edited("\"allocsim_schedule\": 1,", "")), Catch::Contains("not a schedule file"));
  CHECK_THAT(error_of(edited("\"allocsim_schedule\": 1", "\"allocsim_schedule\": 2")),
             Catch::Contains("allocsim_schedule: version 2 is not supported"));
  CHECK_THAT(error_of(edited("\"allocsim_schedule\": 1", "\"allocsim_schedule\": \"1\"")),
             Catch::Contains("is not supported"));
  CHECK_THAT(error_of(edited("\"agent\": \"host\"", "\"agent\": \"gpu\"")),
             Catch::Contains("w.json: delays[1].hold.agent: unknown agent \"gpu\" (host, stream or callback)"));
  CHECK_THAT(error_of(edited("\"op\": 2", "\"op\": -1")), Catch::Contains("delays[0].hold.op: must be >= 0"));
  CHECK_THAT(error_of(edited("\"op\": 2", "\"op\": 2.5")), Catch::Contains("delays[0].hold.op: must be an integer"));
  CHECK_THAT(error_of(edited("\"callback\": 1", "\"callback\": 0")),
             Catch::Contains("delays[1].until.callback: must be >= 1"));
  CHECK_THAT(error_of(edited("\"agent\": \"host\", \"op\": 7", "\"agent\": \"host\", \"stream\": \"compute\", \"op\": 7")),
             Catch::Contains("delays[1].hold: unexpected key \"stream\""));
  CHECK_THAT(error_of(edited("\"stream\": \"compute\", ", "")), Catch::Contains("delays[0].hold: missing \"stream\""));
  CHECK_THAT(error_of(edited("\"semaphore\": 32", "\"semaphore\": 0")), Catch::Contains("semaphore: must be in 1"));
  CHECK_THAT(error_of(edited("\"seed\": 1", "\"seed\": -3")), Catch::Contains("seed: must be in 0"));
  CHECK_THAT(error_of(edited("\"policy\": \"immediate\",", "")), Catch::Contains("w.json: missing \"policy\""));
  CHECK_THAT(error_of(edited("\"trials\": \"20\"", "\"trials\": [20]")), Catch::Contains("set.trials: must be a string or a number"));
  CHECK_THAT(error_of(edited("\"autotune\", \"op\": 0", "\"compute\", \"op\": 2")), Catch::Contains("delays[0]: holds a step until itself"));
  CHECK_THAT(error_of(edited("\"held_ns\": 1003000", "\"held_ns\": -1")), Catch::Contains("delays[0].held_ns: must be >= 0"));
}

TEST_CASE("check_schedule_streams names a stream the program does not have") {
  Program p;
  p.streams = {{"compute", true}, {"autotune", false}};
  const Schedule s = parse_schedule(kExample, "w.json");
  CHECK_NOTHROW(check_schedule_streams(s, p, "w.json"));
  CHECK(stream_index(p, "autotune") == 1);
  CHECK(stream_index(p, "h2d") == kNoStream);
  p.streams[1].name = "h2d";
  CHECK_THROWS_WITH(check_schedule_streams(s, p, "w.json"),
                    Catch::Contains("w.json: delays[0].until: stream \"autotune\" is not a stream of the program "
                                    "(its streams: compute, h2d)"));
}

TEST_CASE("describe names each agent's locator") {
  CHECK(describe({StepLocator::Agent::Host, "", 3}) == "host op 3");
  CHECK(describe({StepLocator::Agent::Stream, "compute", 2}) == "stream compute op 2");
  CHECK(describe({StepLocator::Agent::Callback, "", 1}) == "callback 1");
}
