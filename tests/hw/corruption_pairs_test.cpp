// CorruptionPairTally: hardware foreign sources and simulated manifest findings, pair by pair.
#include <catch2/catch.hpp>

#include "allocsim/hw/corruption_pairs.h"

using namespace allocsim;
using hw::ForeignSource;

namespace {

Program two_execution_program() {
  Program p;
  p.buffer_names = {"W", "batch", "scratch", "batch#1"};
  auto op = [&](HostOpKind k, BufferId b = -1) {
    HostOp o;
    o.kind = k;
    o.buffer = b;
    p.ops.push_back(o);
  };
  op(HostOpKind::Alloc, 0);
  op(HostOpKind::BeginExecution);
  op(HostOpKind::Alloc, 1);
  op(HostOpKind::Alloc, 2);
  op(HostOpKind::BeginExecution);
  op(HostOpKind::Alloc, 3);
  return p;
}

Finding manifest(BufferId victim, BufferId clobber, std::string clobber_op, bool victim_first) {
  Finding f;
  f.kind = FindingKind::Manifest;
  FindingSide v, c;
  v.alloc = victim;
  v.write = false;
  v.op = "kernel";
  c.alloc = clobber;
  c.write = true;
  c.op = std::move(clobber_op);
  f.first = victim_first ? v : c;
  f.second = victim_first ? c : v;
  return f;
}

}  // namespace

TEST_CASE("corruption pairs: a pair counts once per trial or run, memset clobbers are zeroing", "[hw][pairs]") {
  const Program program = two_execution_program();
  const ExecutionUnits units = execution_units(program);
  hw::CorruptionPairTally tally(program, units);
  // Trial 1: batch read the scratch's zeroes (two separate runs of words) and scratch read batch#1.
  tally.add_trial({{1, ForeignSource::kZeroing, 100}, {1, ForeignSource::kZeroing, 20}, {2, 3, 7}});
  // Trial 2: batch read zeroes again, and data left from an earlier trial.
  tally.add_trial({{1, ForeignSource::kZeroing, 5}, {1, ForeignSource::kEarlierTrial, 1}});
  // Sim run 1: batch clobbered by the scratch's memset (victim listed second), twice.
  tally.add_sim_run({manifest(1, 2, "memset", false), manifest(1, 2, "memset", true)});
  // Sim run 2: a kernel write of batch#1 clobbered the scratch; a latent finding is ignored.
  Finding latent = manifest(2, 1, "kernel", true);
  latent.kind = FindingKind::Latent;
  tally.add_sim_run({manifest(2, 3, "kernel", true), latent});

  const std::vector<hw::CorruptionPair> pairs = tally.pairs();
  REQUIRE(pairs.size() == 3);
  // by reader, then writer: (earlier trial) = -2 before (zeroing) = -1
  CHECK(pairs[0].reader == "batch");
  CHECK(pairs[0].writer == "(earlier trial)");
  CHECK(pairs[0].hw_trials == 1);
  CHECK(pairs[0].sim_runs == 0);
  CHECK(pairs[1].reader == "batch");
  CHECK(pairs[1].writer == "(zeroing)");
  CHECK(pairs[1].writer_execution == -1);
  CHECK(pairs[1].hw_trials == 2);
  CHECK(pairs[1].hw_words == 125);
  CHECK(pairs[1].sim_runs == 1);
  CHECK(pairs[2].reader == "scratch");
  CHECK(pairs[2].reader_execution == 0);
  CHECK(pairs[2].writer == "batch#1");
  CHECK(pairs[2].writer_execution == 1);
  CHECK(pairs[2].hw_trials == 1);
  CHECK(pairs[2].hw_words == 7);
  CHECK(pairs[2].sim_runs == 1);
}
