// Hand-built host programs for the end-to-end policy tests through simulate() (built in C++ so
// these tests do not depend on the scenario loader).
#pragma once
#include <string>

#include "allocsim/core/chooser.h"
#include "allocsim/core/scenario.h"
#include "allocsim/engine/simulate.h"

namespace allocsim::test {

class ProgramBuilder {
 public:
  explicit ProgramBuilder(Program& p) : p_(p) {
    p_.streams = {{"compute", true}, {"autotune", false}};
  }
  BufferId buffer(std::string name) {
    p_.buffer_names.push_back(std::move(name));
    return BufferId(p_.buffer_names.size() - 1);
  }
  void alloc(BufferId b, StreamId s, std::uint64_t bytes) {
    HostOp op = op_of(HostOpKind::Alloc);
    op.buffer = b, op.stream = s, op.bytes = bytes;
    p_.ops.push_back(op);
  }
  void release(BufferId b) {
    HostOp op = op_of(HostOpKind::Release);
    op.buffer = b;
    p_.ops.push_back(op);
  }
  void device_op(HostOpKind kind, StreamId s, TimeNs ns, std::vector<BufferId> reads, std::vector<BufferId> writes) {
    HostOp op = op_of(kind);
    op.stream = s;
    op.duration = Duration::fixed(double(ns));
    for (BufferId b : reads) op.reads.push_back({b, 0, 0});
    for (BufferId b : writes) op.writes.push_back({b, 0, 0});
    p_.ops.push_back(op);
  }
  void simple(HostOpKind kind) { p_.ops.push_back(op_of(kind)); }

 private:
  static HostOp op_of(HostOpKind kind) {
    HostOp op;
    op.kind = kind;
    return op;
  }
  Program& p_;
};

inline constexpr StreamId kCompute = 0, kAutotune = 1;

/// The hazard of docs/design.md section 7 in its smallest form: fill X on compute, a long kernel, read X
/// on compute, the host releases X, then the autotune stream (non-compute: the guard applies)
/// allocates the same size and memsets it.
inline Scenario seed_scenario() {
  Scenario sc;
  sc.name = "policies-seed";
  ProgramBuilder pb(sc.program);
  const BufferId x = pb.buffer("X"), scratch = pb.buffer("scratch");
  const std::uint64_t bytes = 4 << 20;
  pb.simple(HostOpKind::BeginExecution);
  pb.alloc(x, kCompute, bytes);
  pb.device_op(HostOpKind::Kernel, kCompute, 10'000, {}, {x});           // fill X
  pb.device_op(HostOpKind::Kernel, kCompute, 1'000'000, {}, {});         // 1 ms spin
  pb.device_op(HostOpKind::Kernel, kCompute, 10'000, {x}, {});           // read X
  pb.simple(HostOpKind::EndExecution);
  pb.release(x);
  pb.alloc(scratch, kAutotune, bytes);
  pb.device_op(HostOpKind::Memset, kAutotune, 5'000, {}, {scratch});     // MemZero the scratch
  pb.release(scratch);
  pb.simple(HostOpKind::Shutdown);
  return sc;
}

/// Churn: `steps` executions of `per_step` compute kernels; kernel i writes a freshly allocated
/// buffer (mixed size, drawn from a seeded Chooser) and reads the previous one, which the host then
/// releases. Kernels take 50 us and cost 3.8 us of host launch time, so the host runs ahead of
/// the device until the compute semaphore stops it.
inline Scenario churn_scenario(int steps = 60, int per_step = 8, std::uint64_t seed = 7) {
  Scenario sc;
  sc.name = "policies-churn";
  ProgramBuilder pb(sc.program);
  auto rng = make_seeded_chooser(seed);
  BufferId prev = -1;
  for (int step = 0; step < steps; ++step) {
    pb.simple(HostOpKind::BeginExecution);
    for (int i = 0; i < per_step; ++i) {
      const BufferId b = pb.buffer("b" + std::to_string(step) + "_" + std::to_string(i));
      const std::uint64_t bytes = (std::uint64_t(1) << 18) << rng->pick(6);  // 256 KiB .. 8 MiB
      pb.alloc(b, kCompute, bytes);
      if (prev >= 0) {
        pb.device_op(HostOpKind::Kernel, kCompute, 50'000, {prev}, {b});
        pb.release(prev);
      } else {
        pb.device_op(HostOpKind::Kernel, kCompute, 50'000, {}, {b});
      }
      prev = b;
    }
    pb.simple(HostOpKind::EndExecution);
  }
  pb.release(prev);
  pb.simple(HostOpKind::Shutdown);
  return sc;
}

inline RunResult run(const Scenario& sc, std::string_view policy_name, std::string_view guard_name, int semaphore = 32,
                     Params params = {}, std::uint64_t seed = 1) {
  SimOptions o;
  o.semaphore = semaphore;
  o.seed = seed;
  o.params = params;
  o.platform = sc.platform;
  auto p = make_policy(policy_name, params);
  auto g = make_guard(guard_name, params);
  if (!p || !g) throw std::runtime_error("unknown policy or guard");
  return simulate(sc, *p, *g, o);
}

}  // namespace allocsim::test
