// validate --schedule without a GPU: which delays the HIP backend can force (plan_forcing) and
// which gate, signal or event goes with each launch and host op (ScheduleForcing).
#include <catch2/catch.hpp>

#include "allocsim/hw/schedule_forcing.h"
#include "allocsim/scenarios/loader.h"

using namespace allocsim;
using Agent = StepLocator::Agent;

namespace {

Schedule schedule_of(std::vector<Delay> delays) {
  Schedule s;
  s.scenario = "seed-repro";
  s.policy = "immediate";
  s.guard = "none";
  s.semaphore = 32;
  s.seed = 1;
  s.delays = std::move(delays);
  return s;
}

StepLocator stream_op(const char* stream, std::int64_t j) { return {Agent::Stream, stream, j}; }
StepLocator host_op(std::int64_t n) { return {Agent::Host, "", n}; }

std::string error_of(const Program& p, std::vector<Delay> delays) {
  try {
    hw::plan_forcing(schedule_of(std::move(delays)), p, "w.json");
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "(accepted)";
}

const Program& seed_repro() {
  static const Scenario s = load_scenario("seed-repro");
  return s.program;
}

}  // namespace

TEST_CASE("seed-repro's witness locators name execution t's copy and memset") {
  // The explore witness holds compute op 4t + 2 (the copy) until autotune op t (the memset): the
  // counting the simulator and the GPU share must put those ops there.
  const Program& p = seed_repro();
  const auto sites = hw::launch_sites(p);
  const StreamId compute = stream_index(p, "compute"), autotune = stream_index(p, "autotune");
  REQUIRE(sites[std::size_t(compute)].size() == 80);  // 20 executions x fill, spin, copy, check
  REQUIRE(sites[std::size_t(autotune)].size() == 20);
  for (std::size_t t = 0; t < 20; ++t) {
    CHECK(p.ops[sites[std::size_t(compute)][4 * t + 2]].kind == HostOpKind::Copy);
    CHECK(p.ops[sites[std::size_t(autotune)][t]].kind == HostOpKind::Memset);
    // The copy is launched before the memset it waits for: the host is never held by the gate.
    CHECK(sites[std::size_t(compute)][4 * t + 2] < sites[std::size_t(autotune)][t]);
  }
}

TEST_CASE("ScheduleForcing puts the gate before the held op and the signal after the until op") {
  const Program& p = seed_repro();
  const auto delays = hw::plan_forcing(schedule_of({{stream_op("compute", 14), stream_op("autotune", 3), {}}}), p, "w");
  REQUIRE(delays.size() == 1);
  CHECK(delays[0].kind == hw::ForcedDelay::Kind::StreamUntilStream);
  hw::ScheduleForcing f(delays, p.streams.size());
  const StreamId compute = stream_index(p, "compute"), autotune = stream_index(p, "autotune");
  for (int trial = 0; trial < 2; ++trial) {  // the counts start again with every trial
    f.begin_trial();
    int gates = 0, signals = 0;
    // Launch in the program's own order, as the interpreter does.
    for (const HostOp& op : p.ops) {
      if (op.kind != HostOpKind::Kernel && op.kind != HostOpKind::Memset && op.kind != HostOpKind::Copy) continue;
      const std::int64_t j = f.launched(op.stream);
      const auto at = f.on_launch(op.stream);
      if (op.stream == compute && j == 14) {
        CHECK(op.kind == HostOpKind::Copy);
        CHECK(at.gates_before == std::vector<int>{0});
      } else {
        CHECK(at.gates_before.empty());
      }
      if (op.stream == autotune && j == 3) {
        CHECK(op.kind == HostOpKind::Memset);
        CHECK(at.signals_after == std::vector<int>{0});
      } else {
        CHECK(at.signals_after.empty());
      }
      CHECK(at.events_after.empty());
      gates += int(at.gates_before.size());
      signals += int(at.signals_after.size());
    }
    CHECK(gates == 1);
    CHECK(signals == 1);
    CHECK(f.trial()[0].held);
    CHECK(f.trial()[0].signalled);
    CHECK_FALSE(f.trial()[0].timed_out);
    f.set_timed_out(0);
    CHECK(f.trial()[0].timed_out);
  }
  // A stream the program does not name (a backend's callback or signal stream) counts nothing.
  CHECK(f.on_launch(StreamId(p.streams.size())).gates_before.empty());
}

TEST_CASE("ScheduleForcing: host holds wait for an event, stream holds until a host op get a host signal") {
  const Program& p = seed_repro();
  const StreamId autotune = stream_index(p, "autotune");
  const std::size_t memset0 = hw::launch_sites(p)[std::size_t(autotune)][0];
  const auto delays = hw::plan_forcing(schedule_of({{host_op(std::int64_t(memset0) + 2), stream_op("autotune", 0), {}},
                                                    {stream_op("compute", 1), host_op(5), {}},
                                                    {host_op(9), host_op(4), {}}}),
                                       p, "w");
  CHECK(delays[0].kind == hw::ForcedDelay::Kind::HostUntilStream);
  CHECK(delays[1].kind == hw::ForcedDelay::Kind::StreamUntilHost);
  CHECK(delays[2].kind == hw::ForcedDelay::Kind::HostAfterEarlierHost);
  hw::ScheduleForcing f(delays, p.streams.size());
  f.begin_trial();
  CHECK(f.trial()[2].signalled);  // host op 4 is done before host op 9, always
  CHECK_FALSE(f.trial()[0].signalled);
  const auto at = f.on_launch(autotune);
  CHECK(at.events_after == std::vector<int>{0});
  CHECK(at.signals_after.empty());
  CHECK(f.trial()[0].signalled);
  CHECK(f.waits_before_host_op(memset0 + 1).empty());
  CHECK(f.waits_before_host_op(memset0 + 2) == std::vector<int>{0});
  CHECK(f.trial()[0].held);
  CHECK(f.signals_after_host_op(4).empty());
  CHECK(f.signals_after_host_op(5) == std::vector<int>{1});
  CHECK(f.waits_before_host_op(9).empty());  // nothing to wait for: host op 4 is done
  CHECK(f.trial()[2].held);
}

TEST_CASE("plan_forcing refuses what the GPU cannot force, naming the delay") {
  const Program& p = seed_repro();
  CHECK_THAT(error_of(p, {{stream_op("compute", 2), {Agent::Callback, "", 1}, {}}}),
             Catch::Contains("w.json: delays[0]: stream compute op 2 until callback 1: not forceable on the GPU yet"));
  CHECK_THAT(error_of(p, {{{Agent::Callback, "", 2}, stream_op("compute", 0), {}}}),
             Catch::Contains("not forceable on the GPU yet"));
  CHECK_THAT(error_of(p, {{stream_op("compute", 2), stream_op("h2d", 0), {}}}),
             Catch::Contains("delays[0].until: stream \"h2d\" is not a stream of the program"));
  CHECK_THAT(error_of(p, {{stream_op("compute", 80), stream_op("autotune", 0), {}}}),
             Catch::Contains("stream compute op 80 is never launched: the program launches 80 device ops on stream compute"));
  CHECK_THAT(error_of(p, {{host_op(std::int64_t(p.ops.size())), stream_op("autotune", 0), {}}}),
             Catch::Contains("is past the program's end"));
  CHECK_THAT(error_of(p, {{stream_op("compute", 2), stream_op("compute", 2 + 1), {}}}),
             Catch::Contains("the until op runs after the held one on the same stream"));
  CHECK_THAT(error_of(p, {{host_op(0), stream_op("autotune", 0), {}}}),
             Catch::Contains("so the host would wait for its own later step"));
  CHECK_THAT(error_of(p, {{host_op(3), host_op(3 + 1), {}}}), Catch::Contains("the until op needs the held one"));
  CHECK(error_of(p, {{stream_op("compute", 3), stream_op("compute", 1), {}}}) == "(accepted)");  // stream order does it
}
