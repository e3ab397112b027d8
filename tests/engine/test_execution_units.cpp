// Attributing allocations, corrupted reads and simulated manifest findings to executions.
#include <catch2/catch.hpp>

#include "allocsim/engine/execution_units.h"

using namespace allocsim;

namespace {

HostOp op(HostOpKind k, BufferId b = -1) {
  HostOp o;
  o.kind = k;
  o.buffer = b;
  return o;
}

// W before any execution; two executions allocating X#0 / X#1; scratch after the first execution.
Program two_executions() {
  Program p;
  p.buffer_names = {"W", "X", "scratch", "X#1", "never"};
  p.ops = {op(HostOpKind::Alloc, 0),         op(HostOpKind::BeginExecution), op(HostOpKind::Alloc, 1),
           op(HostOpKind::EndExecution),     op(HostOpKind::Alloc, 2),       op(HostOpKind::BeginExecution),
           op(HostOpKind::Alloc, 3),         op(HostOpKind::EndExecution)};
  return p;
}

Finding manifest(BufferId reader, BufferId writer, bool reader_first) {
  Finding f;
  f.kind = FindingKind::Manifest;
  FindingSide r, w;
  r.alloc = reader;
  r.write = false;
  w.alloc = writer;
  w.write = true;
  f.first = reader_first ? r : w;
  f.second = reader_first ? w : r;
  return f;
}

}  // namespace

TEST_CASE("allocations map to the execution that allocated them") {
  auto u = execution_units(two_executions());
  CHECK(u.units == 2);
  REQUIRE(u.unit_of_buffer.size() == 5);
  CHECK(u.unit_of_buffer[0] == 0);  // before the first execution: counted with it
  CHECK(u.unit_of_buffer[1] == 0);
  CHECK(u.unit_of_buffer[2] == 0);  // between executions: with the one before
  CHECK(u.unit_of_buffer[3] == 1);
}

TEST_CASE("a program without executions is one unit") {
  Program p;
  p.buffer_names = {"A"};
  p.ops = {op(HostOpKind::Alloc, 0)};
  auto u = execution_units(p);
  CHECK(u.units == 1);
  CHECK(u.unit_of_buffer[0] == 0);
}

TEST_CASE("corrupted units: one per execution with a foreign read, however many words") {
  auto u = execution_units(two_executions());
  CHECK(corrupted_units(u, {0, 0, 0, 0, 0}).empty());
  CHECK(corrupted_units(u, {0, 7, 0, 0, 0}) == std::set<int>{0});
  CHECK(corrupted_units(u, {3, 7, 0, 1, 0}) == std::set<int>{0, 1});
}

TEST_CASE("manifest units attribute each manifest finding to its reading allocation") {
  auto u = execution_units(two_executions());
  std::vector<Finding> f{manifest(3, 2, true)};
  CHECK(manifest_units(u, f) == std::set<int>{1});
  f = {manifest(1, 2, false)};  // the reader listed second
  CHECK(manifest_units(u, f) == std::set<int>{0});
  Finding latent = manifest(3, 2, true);
  latent.kind = FindingKind::Latent;
  CHECK(manifest_units(u, {latent}).empty());  // only manifest findings count
}
