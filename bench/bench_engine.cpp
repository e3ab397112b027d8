// Engine benchmarks (docs/design.md section 9): the event queue's raw throughput (target >= 20 M
// simple events/s on the 2-core build machine), and a 1 M-op scenario end to end through
// simulate() with a test-only immediate policy, with and without race detection.
#include <benchmark/benchmark.h>

#include <memory>

#include "allocsim/core/policy.h"
#include "allocsim/core/scenario.h"
#include "engine/event_queue.h"
#include "allocsim/engine/simulate.h"

using namespace allocsim;

namespace {

// Simple events: a steady-state queue of `depth` pending events; each pop schedules one new event
// a pseudo-random distance ahead (what the engine does: an op end schedules the next op).
void BM_EventQueueHold(benchmark::State& state) {
  const std::size_t depth = std::size_t(state.range(0));
  EventQueue q;
  q.reserve(depth + 1);
  std::uint64_t x = 88172645463325252ull;
  auto next = [&] {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return TimeNs(x % 10000);
  };
  for (std::size_t i = 0; i < depth; ++i) q.push(next(), 0, 0, i);
  std::uint64_t sum = 0;
  for (auto _ : state) {
    const QueuedEvent e = q.pop();
    sum += e.arg;
    q.push(e.time + next(), e.kind, e.target, e.arg);
  }
  benchmark::DoNotOptimize(sum);
  state.counters["events/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueueHold)->Arg(16)->Arg(1024)->Arg(65536);

class BenchImmediate final : public FreePolicy {
 public:
  std::string_view name() const override { return "bench-immediate"; }
  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    const Chunk c = buf.chunk;
    const BufferId id = buf.id;
    plan.push_back(Step::run([c, id](Backend& b, Plan&) { b.pool_free(c, id); }));
  }
};
class BenchNoGuard final : public Guard {
 public:
  std::string_view name() const override { return "bench-none"; }
};

// ~1 M host ops: per step alloc, write kernel, read kernel on compute, a memset on a second stream
// for every 8th step, release; begin/end execution around every 8 steps.
Scenario million_op_scenario() {
  Scenario sc;
  sc.name = "bench-1m";
  sc.device.memory_limit = std::uint64_t(1) << 30;
  Program& p = sc.program;
  p.streams = {{"compute", true}, {"autotune", false}};
  const int steps = 240000;  // ~1.02 M host ops
  p.buffer_names.resize(steps);
  for (int i = 0; i < steps; ++i) {
    if (i % 8 == 0) p.ops.push_back(HostOp{HostOpKind::BeginExecution, kNoStream, -1, 0, kNoEvent, false, {}, {}, {}, 0, {}});
    const StreamId s = (i % 8 == 7) ? 1 : 0;
    HostOp alloc{HostOpKind::Alloc, s, i, std::uint64_t(4096) << (i % 6), kNoEvent, false, {}, {}, {}, 0, {}};
    p.ops.push_back(alloc);
    HostOp w{HostOpKind::Kernel, s, -1, 0, kNoEvent, false, Duration::fixed(2000), {}, {{i, 0, 0}}, 0, {}};
    if (s == 1) w.kind = HostOpKind::Memset;
    p.ops.push_back(w);
    HostOp r{HostOpKind::Kernel, s, -1, 0, kNoEvent, false, Duration::fixed(3000), {{i, 0, 0}}, {}, 0, {}};
    p.ops.push_back(r);
    p.ops.push_back(HostOp{HostOpKind::Release, kNoStream, i, 0, kNoEvent, false, {}, {}, {}, 0, {}});
    if (i % 8 == 7) p.ops.push_back(HostOp{HostOpKind::EndExecution, kNoStream, -1, 0, kNoEvent, false, {}, {}, {}, 0, {}});
  }
  return sc;
}

void BM_Simulate1MOps(benchmark::State& state) {
  static const Scenario sc = million_op_scenario();
  BenchImmediate policy;
  BenchNoGuard guard;
  SimOptions opt;
  opt.detect_races = state.range(0) != 0;
  opt.semaphore = 32;
  std::uint64_t latent = 0;
  for (auto _ : state) {
    RunResult r = simulate(sc, policy, guard, opt);
    if (!r.completed) state.SkipWithError(r.error.c_str());
    latent = r.races_latent;
    benchmark::DoNotOptimize(r.makespan_ns);
  }
  state.counters["latent"] = double(latent);
  state.counters["host_ops"] = double(sc.program.ops.size());
  state.counters["ops/s"] =
      benchmark::Counter(double(sc.program.ops.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Simulate1MOps)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
