// The explorer's job messages (results/src/explore_wire.h): a schedule's delays and what playing it
// gave cross the job farm, between MPI ranks too, and must come back exactly (the report is the
// same bytes on any number of ranks); a malformed message is an error, never a wrong result.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "explore_wire.h"

using namespace allocsim;
using namespace allocsim::explore_detail;

namespace {

StepRef step(StepAgent agent, StreamId stream, std::uint64_t index) { return StepRef{agent, stream, index}; }

const std::vector<StepHold> kDelays = {
    {step(StepAgent::Host, kNoStream, 14), step(StepAgent::Stream, 1, 3)},
    {step(StepAgent::Callback, kNoStream, std::numeric_limits<std::uint64_t>::max()),
     step(StepAgent::Host, kNoStream, 0)},
};

Played awkward_played() {
  Played p;
  p.schedule.delays = kDelays;
  p.schedule.holds = {{true, true, false, 1'234'567},
                      {true, false, true, std::numeric_limits<TimeNs>::min()}};
  p.schedule.verdict = ScheduleVerdict::Manifest;
  // Bytes a text format could trip over: separators, a length prefix's colon, digits, a newline,
  // a NUL, bytes that are not UTF-8.
  p.schedule.detail = std::string("manifest race: 12:34 A/B\nline 2 \0 \xff\xfe end ", 39);
  p.schedule.signature = "";
  p.schedule.manifest_executions = {0, 2, 7};
  p.children = {{}, kDelays, {kDelays[1]}};
  p.pruned = std::numeric_limits<std::uint64_t>::max();
  return p;
}

void check_same(const std::vector<StepHold>& a, const std::vector<StepHold>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
}

}  // namespace

TEST_CASE("a schedule job comes back exactly", "[explore]") {
  for (const bool expand : {false, true})
    for (const std::vector<StepHold>& delays : {std::vector<StepHold>{}, kDelays}) {
      const ScheduleJob back = decode_job(encode_job({delays, expand}));
      CHECK(back.expand == expand);
      check_same(back.delays, delays);
    }
}

TEST_CASE("what playing a schedule gave comes back exactly, any bytes in its strings", "[explore]") {
  const Played p = awkward_played();
  const Played back = decode_played(encode_played(p));
  check_same(back.schedule.delays, p.schedule.delays);
  REQUIRE(back.schedule.holds.size() == p.schedule.holds.size());
  for (std::size_t i = 0; i < p.schedule.holds.size(); ++i) {
    CHECK(back.schedule.holds[i].reached == p.schedule.holds[i].reached);
    CHECK(back.schedule.holds[i].waited == p.schedule.holds[i].waited);
    CHECK(back.schedule.holds[i].quiescence == p.schedule.holds[i].quiescence);
    CHECK(back.schedule.holds[i].held_ns == p.schedule.holds[i].held_ns);
  }
  CHECK(back.schedule.verdict == p.schedule.verdict);
  CHECK(back.schedule.detail == p.schedule.detail);
  CHECK(back.schedule.signature == p.schedule.signature);
  CHECK(back.schedule.manifest_executions == p.schedule.manifest_executions);
  REQUIRE(back.children.size() == p.children.size());
  for (std::size_t i = 0; i < p.children.size(); ++i) check_same(back.children[i], p.children[i]);
  CHECK(back.pruned == p.pruned);
  CHECK(encode_played(back) == encode_played(p));
  // The least a schedule gives: the timed run, clean, not expanded.
  const Played empty = decode_played(encode_played(Played{}));
  CHECK(empty.schedule.delays.empty());
  CHECK(empty.schedule.verdict == ScheduleVerdict::Clean);
  CHECK(empty.children.empty());
}

TEST_CASE("a malformed job message is an error", "[explore]") {
  const std::string played = encode_played(awkward_played());
  // Cut anywhere before the last number (MPI delivers messages whole; a cut is a bug of ours).
  for (std::size_t cut : {std::size_t(0), std::size_t(1), played.size() / 2, played.size() - 22})
    CHECK_THROWS_AS(decode_played(played.substr(0, cut)), std::runtime_error);
  CHECK_THROWS_AS(decode_played(played + " 0"), std::runtime_error);   // trailing bytes
  CHECK_THROWS_AS(decode_job("2 0"), std::runtime_error);              // expand is 0 or 1
  CHECK_THROWS_AS(decode_job("1 1 3 -1 0 0 -1 0"), std::runtime_error);  // no agent 3
  CHECK_THROWS_AS(decode_job("1 99999999 0"), std::runtime_error);     // more delays than bytes
  CHECK_THROWS_AS(decode_job("1  0"), std::runtime_error);             // two separators
  const std::string verdict_9 = encode_played(Played{}).replace(4, 1, "9");  // "0 0 4 ...": the verdict
  CHECK_THROWS_AS(decode_played(verdict_9), std::runtime_error);
}
