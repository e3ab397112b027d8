// Host mutexes in the sim engine (docs/design.md section 3): the host's lock steps and unlocks,
// program callbacks whose bodies take mutexes, the hand-over between them, the happens-before a
// mutex carries, and a cycle through a mutex and a stream ending as the engine's deadlock result.
#include <catch2/catch.hpp>

#include "engine_test_support.h"

using namespace allocsim;
using namespace allocsim::test;

namespace {

HostOp lock_op(HostOpKind k, MutexId m) {
  HostOp op = make_op(k);
  op.mutexes = {m};
  return op;
}

HostOp callback_op(StreamId s, std::vector<MutexId> locks, double body_ns) {
  HostOp op = make_op(HostOpKind::HostCallback);
  op.stream = s;
  op.mutexes = std::move(locks);
  op.duration = Duration::fixed(body_ns);
  return op;
}

MutexId mutex(ProgramBuilder& pb, const std::string& name) {
  pb.program().mutex_names.push_back(name);
  return MutexId(pb.program().mutex_names.size() - 1);
}

}  // namespace

TEST_CASE("a callback that needs the mutex the host holds while it waits for the stream deadlocks", "[engine][mutex]") {
  // openxla/xla #6318's cycle, with no timing left to chance: the host takes `mu` before it even
  // enqueues the callback, then waits for the callback's stream.
  ProgramBuilder pb;
  const MutexId mu = mutex(pb, "mu");
  pb.add(lock_op(HostOpKind::Lock, mu));
  pb.add(callback_op(0, {mu}, 100));
  pb.stream_sync(0);
  pb.add(lock_op(HostOpKind::Unlock, mu));
  ImmediatePolicy policy;
  const RunResult r = run(pb.scenario(), policy, quiet_options());
  INFO(r.error);
  CHECK_FALSE(r.completed);
  CHECK_THAT(r.error, Catch::StartsWith("deadlock: nothing can make progress"));
  CHECK_THAT(r.error, Catch::Contains("host: waiting for stream 'compute' to drain"));
  CHECK_THAT(r.error, Catch::Contains("callback thread: 1 callback(s) pending, callback #1 (host-callback locks mu) "
                                      "waiting for mutex 'mu' (held by the host), holding stream 'compute'"));
}

TEST_CASE("a lock-order inversion between the host and a callback deadlocks, naming both mutexes", "[engine][mutex]") {
  ProgramBuilder pb;
  const MutexId a = mutex(pb, "A");
  const MutexId b = mutex(pb, "B");
  pb.add(lock_op(HostOpKind::Lock, b));
  pb.add(callback_op(0, {a, b}, 100));  // takes A, then waits for B
  pb.host_delay(10000);                 // the callback has A by now
  pb.add(lock_op(HostOpKind::Lock, a));
  pb.add(lock_op(HostOpKind::Unlock, a));
  pb.add(lock_op(HostOpKind::Unlock, b));
  ImmediatePolicy policy;
  const RunResult r = run(pb.scenario(), policy, quiet_options());
  INFO(r.error);
  CHECK_FALSE(r.completed);
  CHECK_THAT(r.error, Catch::StartsWith("deadlock: nothing can make progress"));
  CHECK_THAT(r.error, Catch::Contains("host: waiting for mutex 'A' (held by the callback thread) at op #3"));
  CHECK_THAT(r.error, Catch::Contains("waiting for mutex 'B' (held by the host)"));
}

TEST_CASE("the host blocks on a mutex a callback holds and takes it when the callback returns", "[engine][mutex]") {
  // round_platform: enqueue 1 ns, callback latency 100 ns, callback run 50 ns, wake-up 0.
  ProgramBuilder pb;
  const MutexId mu = mutex(pb, "mu");
  pb.add(callback_op(0, {mu}, 1000));  // marker at t=1: body from 101, returns at 101+1000+50
  pb.host_delay(500);                  // the host comes for mu while the body runs
  pb.add(lock_op(HostOpKind::Lock, mu));
  pb.add(lock_op(HostOpKind::Unlock, mu));
  SpanRecorder rec;
  ImmediatePolicy policy;
  const RunResult r = run(pb.scenario(), policy, quiet_options(), {&rec});
  INFO(r.error);
  REQUIRE(r.completed);
  REQUIRE(rec.callbacks.size() == 1);
  CHECK(rec.callbacks[0] == std::pair<TimeNs, TimeNs>{101, 1151});
  REQUIRE(rec.blocked.size() == 1);
  CHECK(rec.blocked[0] == std::pair<TimeNs, TimeNs>{501, 1151});
  CHECK(r.host_blocked_sync_ns == 650);  // a program lock counts as the program's own sync
}

TEST_CASE("a callback waits for a mutex the host holds and runs once the host unlocks it", "[engine][mutex]") {
  ProgramBuilder pb;
  const MutexId mu = mutex(pb, "mu");
  pb.add(lock_op(HostOpKind::Lock, mu));
  pb.add(callback_op(0, {mu}, 10));
  pb.host_delay(2000);
  pb.add(lock_op(HostOpKind::Unlock, mu));  // at t=2001: the callback gets mu and starts
  pb.device_sync();
  SpanRecorder rec;
  ImmediatePolicy policy;
  const RunResult r = run(pb.scenario(), policy, quiet_options(), {&rec});
  INFO(r.error);
  REQUIRE(r.completed);
  REQUIRE(rec.callbacks.size() == 1);
  CHECK(rec.callbacks[0] == std::pair<TimeNs, TimeNs>{2001, 2061});
}

TEST_CASE("a mutex orders what the callback saw before the host that takes it next", "[engine][mutex][race]") {
  // X is written on compute; a callback after that write takes and releases `mu`; the host frees X
  // and another stream writes the reused bytes. Only the mutex orders the host after the write:
  // without the host's lock/unlock the detector reports the latent race, with it none.
  auto program = [](bool host_takes_mutex) {
    ProgramBuilder pb({"other"});
    const MutexId mu = mutex(pb, "mu");
    const BufferId x = pb.buffer("X");
    const BufferId y = pb.buffer("Y");
    pb.alloc(x, 0, 1 << 20);
    pb.kernel(0, Duration::fixed(100), {}, {x});
    pb.add(callback_op(0, {mu}, 0));
    pb.host_delay(10000);  // the callback has returned long before
    if (host_takes_mutex) {
      pb.add(lock_op(HostOpKind::Lock, mu));
      pb.add(lock_op(HostOpKind::Unlock, mu));
    }
    pb.release(x);
    pb.alloc(y, 1, 1 << 20);  // X's bytes
    pb.kernel(1, Duration::fixed(100), {}, {y});
    pb.release(y);
    pb.device_sync();
    return pb.scenario();
  };
  ImmediatePolicy policy;
  SimOptions opt = quiet_options();
  opt.detect_races = true;
  const RunResult unordered = run(program(false), policy, opt);
  const RunResult ordered = run(program(true), policy, opt);
  REQUIRE(unordered.completed);
  REQUIRE(ordered.completed);
  CHECK(unordered.races_latent > 0);
  CHECK(ordered.races_latent == 0);
}

TEST_CASE("an unlock of a mutex the host does not hold is a run warning", "[engine][mutex]") {
  ProgramBuilder pb;
  const MutexId mu = mutex(pb, "mu");
  pb.add(lock_op(HostOpKind::Unlock, mu));
  ImmediatePolicy policy;
  const RunResult r = run(pb.scenario(), policy, quiet_options());
  REQUIRE(r.completed);
  CHECK(std::find(r.warnings.begin(), r.warnings.end(), "unlock of mutex 'mu' that the host does not hold ignored") !=
        r.warnings.end());
}

TEST_CASE("a host that locks a mutex it holds deadlocks on itself, never hangs", "[engine][mutex]") {
  ProgramBuilder pb;
  const MutexId mu = mutex(pb, "mu");
  pb.add(lock_op(HostOpKind::Lock, mu));
  pb.add(lock_op(HostOpKind::Lock, mu));
  ImmediatePolicy policy;
  const RunResult r = run(pb.scenario(), policy, quiet_options());
  CHECK_FALSE(r.completed);
  CHECK_THAT(r.error, Catch::Contains("host: waiting for mutex 'mu' (held by the host itself)"));
}

TEST_CASE("an op naming a mutex out of range is skipped with a warning", "[engine][mutex]") {
  ProgramBuilder pb;
  pb.add(lock_op(HostOpKind::Lock, 3));
  ImmediatePolicy policy;
  const RunResult r = run(pb.scenario(), policy, quiet_options());
  REQUIRE(r.completed);
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Catch::Contains("mutex index out of range; op skipped"));
}
