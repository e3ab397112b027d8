// allocsim explore (docs/explore.md): the engine's holds, the search, its pruning against plain
// enumeration, witness replay, the case scenarios' expected answers and determinism.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "allocsim/engine/execution_units.h"
#include "allocsim/results/explore.h"
#include "allocsim/results/runner.h"
#include "allocsim/results/resolve.h"
#include "allocsim/scenarios/loader.h"
#include <boost/json.hpp>

using namespace allocsim;

namespace {

std::string case_path(const std::string& name) {
  return std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/cases/" + name + ".yaml";
}

RunConfig config_of(const std::string& scenario, const std::string& policy, Params sets = {}, int semaphore = 32) {
  RunConfig c;
  c.scenario = scenario;
  c.policy = policy;
  c.guard = "none";
  c.semaphore = semaphore;
  c.sets = std::move(sets);
  return c;
}

Params one(const std::string& key, double v) {
  Params p;
  p.set(key, v);
  return p;
}

ExploreReport explore_with(const Scenario& s, const RunConfig& c, int bound, bool prune, int jobs = 2, int execution = -1,
                           bool forceable = false) {
  ExploreOptions o;
  o.bound = bound;
  o.prune = prune;
  o.jobs = jobs;
  o.execution = execution;
  o.forceable = forceable;
  return explore(s, c, o);
}

/// The verdict a search gives: the witness's kind, or "free" (race- and deadlock-free to the bound).
std::string verdict(const ExploreReport& r) {
  const ExploredSchedule* w = r.witness();
  return w ? std::string(verdict_name(w->verdict)) : "free";
}

const char* kTwoStreams = R"(
name: two-streams
streams: [compute, side]
device: {memory_limit: 64MiB, allow_growth: false}
program:
  - alloc: {buffer: A, size: 1MiB}
  - alloc: {buffer: B, stream: side, size: 1MiB}
  - kernel: {name: slow, stream: compute, duration: 100us, writes: [A]}
  - kernel: {name: quick, stream: side, duration: 10us, writes: [B]}
  - device_sync
  - release: [A, B]
)";

}  // namespace

TEST_CASE("a hold makes a step wait until another agent's step is done", "[explore]") {
  const Scenario s = load_scenario_yaml(kTwoStreams, "two-streams.yaml");
  RunConfig c = config_of("two-streams", "immediate");
  // Timed: the side kernel (10 us) ends long before the compute kernel (100 us).
  StepTrace timed;
  run_one(s, c, {}, [&](SimOptions& o) { o.trace = &timed; });
  auto find = [](const StepTrace& t, StepRef r) {
    for (const StepRecord& x : t.steps)
      if (x.ref == r) return x;
    FAIL("step not in the trace");
    return StepRecord{};
  };
  const StepRef compute0{StepAgent::Stream, 0, 0}, side0{StepAgent::Stream, 1, 0};
  REQUIRE(find(timed, side0).end < find(timed, compute0).end);
  // Held until the compute kernel is done, the side kernel starts after it.
  StepTrace held;
  std::vector<HoldOutcome> outcomes;
  const RunResult r = run_one(s, c, {}, [&](SimOptions& o) {
    o.trace = &held;
    o.holds = {StepHold{side0, compute0}};
    o.hold_outcomes = &outcomes;
  });
  CHECK(r.completed);
  CHECK(find(held, side0).start >= find(held, compute0).end);
  REQUIRE(outcomes.size() == 1);
  CHECK(outcomes[0].waited);
  CHECK_FALSE(outcomes[0].quiescence);
  CHECK(outcomes[0].held_ns > 0);
  // A hold until a step that needs the held one (the host's device_sync waits for the side
  // kernel) ends when nothing else can run: no deadlock of its own.
  outcomes.clear();
  const RunResult q = run_one(s, c, {}, [&](SimOptions& o) {
    o.holds = {StepHold{side0, StepRef{StepAgent::Host, kNoStream, 4}}};
    o.hold_outcomes = &outcomes;
  });
  CHECK(q.completed);
  REQUIRE(outcomes.size() == 1);
  CHECK(outcomes[0].quiescence);
}

TEST_CASE("explore finds seed-repro's manifest race in an execution the timed run leaves clean", "[explore]") {
  RunConfig c = config_of("seed-repro", "immediate", one("trials", 4));
  const Scenario s = load_for_run(c);
  const ExecutionUnits units = execution_units(s.program);
  const RunResult timed = run_one(s, c, {}, [](SimOptions& o) { o.max_findings = 1 << 20; });
  REQUIRE_FALSE(manifest_units(units, timed.findings).count(2));

  const ExploreReport r = explore_with(s, c, 2, true, 2, /*execution=*/2, /*forceable=*/true);
  const ExploredSchedule* w = r.witness();
  REQUIRE(w);
  CHECK(w->verdict == ScheduleVerdict::Manifest);
  CHECK(w->delays.size() <= 2);
  CHECK(r.fewest_delays_to_corrupt[2] >= 0);
  CHECK(r.fewest_delays_to_corrupt[2] <= int(w->delays.size()));  // a hold that ran to the end may do with fewer
  for (const HoldOutcome& h : w->holds) CHECK_FALSE(h.quiescence);

  // The witness file replays it: written, read back, run with its holds.
  std::map<std::string, std::string> sets{{"trials", "4"}};
  const Schedule file = parse_schedule(write_schedule(schedule_file_of(r, *w, "seed-repro", sets, s.program)), "w.json");
  CHECK(file.delays.size() == w->delays.size());
  const RunResult replay = run_one(s, c, {}, [&](SimOptions& o) {
    o.holds = holds_of(file, s.program);
    o.max_findings = 1 << 20;
  });
  CHECK(manifest_units(units, replay.findings).count(2) == 1);
}

TEST_CASE("the case scenarios give their expected answers", "[explore]") {
  SECTION("mutex-callback-6318 and scratch-teardown-43489: deadlock found, fixed variant free") {
    for (const std::string name : {"mutex-callback-6318", "scratch-teardown-43489"}) {
      INFO(name);
      RunConfig bug = config_of(case_path(name), "deferred-callback", one("fixed", 0));
      const Scenario sb = load_for_run(bug);
      const RunResult timed = run_one(sb, bug);
      CHECK(timed.completed);  // the timed run misses it
      const ExploreReport rb = explore_with(sb, bug, 2, true);
      REQUIRE(rb.witness());
      CHECK(rb.witness()->verdict == ScheduleVerdict::Deadlock);
      CHECK(rb.witness()->delays.size() >= 1);

      RunConfig fixed = config_of(case_path(name), "deferred-callback", one("fixed", 1));
      const Scenario sf = load_for_run(fixed);
      const ExploreReport rf = explore_with(sf, fixed, 3, true);
      CHECK(verdict(rf) == "free");
      CHECK(rf.complete);
      CHECK(rf.schedules > 1);
    }
  }
  SECTION("last-use-stream: deferred-callback races, stream-aware is free") {
    RunConfig d = config_of(case_path("last-use-stream"), "deferred-callback");
    const Scenario s = load_for_run(d);
    CHECK(verdict(explore_with(s, d, 1, true)) != "free");
    RunConfig sa = config_of(case_path("last-use-stream"), "stream-aware");
    CHECK(verdict(explore_with(s, sa, 2, true)) == "free");
  }
}

TEST_CASE("pruning gives plain enumeration's verdicts with far fewer schedules", "[explore]") {
  // Small enough for plain enumeration under the sanitizers too (about 18,000 plain schedules in
  // all): one or two executions of seed-repro, and the case scenarios.
  struct Small {
    std::string scenario, policy;
    Params sets;
    int semaphore;
    std::vector<int> bounds;
    int execution = -1;
  };
  const std::vector<Small> smalls = {
      {"seed-repro", "deferred-callback", one("trials", 1), 32, {1, 2}},
      {"seed-repro", "deferred-callback", one("trials", 2), 32, {1}},
      {"seed-repro", "stream-aware", one("trials", 1), 2, {1, 2}},
      {"seed-repro", "immediate", one("trials", 2), 32, {1}, /*execution=*/1},  // a witness one delay away
      {case_path("mutex-callback-6318"), "deferred-callback", one("fixed", 0), 32, {1, 2}},
      {case_path("mutex-callback-6318"), "deferred-callback", one("fixed", 1), 32, {1, 2}},
      {case_path("scratch-teardown-43489"), "deferred-callback", one("fixed", 0), 32, {1, 2}},
      {case_path("scratch-teardown-43489"), "deferred-callback", one("fixed", 1), 32, {1, 2}},
      {case_path("last-use-stream"), "stream-aware", {}, 32, {1}},
  };
  for (const Small& x : smalls)
    for (int bound : x.bounds) {
      INFO(x.scenario << " " << x.policy << " bound " << bound << " execution " << x.execution);
      RunConfig c = config_of(x.scenario, x.policy, x.sets, x.semaphore);
      const Scenario s = load_for_run(c);
      const ExploreReport plain = explore_with(s, c, bound, false, 2, x.execution);
      const ExploreReport pruned = explore_with(s, c, bound, true, 2, x.execution);
      CHECK(verdict(pruned) == verdict(plain));
      if (x.execution >= 0) CHECK(verdict(pruned) == "manifest race");
      CHECK(pruned.schedules <= plain.schedules);
    }
}

TEST_CASE("explore's report is the same bytes on any number of threads", "[explore]") {
  RunConfig c = config_of("conv-autotune", "deferred-callback", one("epochs", 1));
  const Scenario s = load_for_run(c);
  const ExploreReport one_thread = explore_with(s, c, 2, true, 1);
  const ExploreReport two_threads = explore_with(s, c, 2, true, 2);
  CHECK(format_explore(one_thread, s.program) == format_explore(two_threads, s.program));
  CHECK(boost::json::serialize(explore_to_json(one_thread, s.program)) ==
        boost::json::serialize(explore_to_json(two_threads, s.program)));
}
