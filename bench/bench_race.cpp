// Race detector cost (docs/design.md section 9: detection on <= 1.5x the run time with it off).
//  - BM_DetectorPerAccess: the detector alone on a synthetic observer stream shaped like a
//    training loop (enqueue edge, stream acquire, whole-buffer read and write, frees and re-allocs
//    at overlapping addresses, an event edge per iteration); items = accesses.
//  - BM_SimulateRaceOnOffRatio: the same scenario through simulate() with detection off, off with a
//    no-op observer attached (the engine's cost of emitting observer calls) and on, alternating
//    inside one run; counters give the times (thread CPU time: the machine is shared) and ratios.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "allocsim/core/policy.h"
#include "allocsim/core/scenario.h"
#include "allocsim/engine/simulate.h"
#include "allocsim/race/race_detector.h"
#include "allocsim/scenarios/loader.h"

using namespace allocsim;

static void BM_DetectorPerAccess(benchmark::State& state) {
  const int kBuffers = 64;
  std::uint64_t accesses = 0;
  for (auto _ : state) {
    RaceDetector d;
    d.on_stream_created(0, "compute");
    d.on_stream_created(1, "autotune");
    std::uint64_t op = 0;
    TimeNs t = 0;
    for (int it = 0; it < 2000; ++it) {
      BufferId b = it;
      BufferInfo info;
      info.id = b;
      info.chunk = {kSharedPool, Addr(it % kBuffers) * 4096 + Addr(it % 3) * 1024, 4096};
      info.requested_bytes = 4096;
      info.alloc_stream = it % 8 == 0 ? 1 : 0;
      StreamId s = info.alloc_stream;
      d.on_alloc(kHostAgent, info, t);
      for (int k = 0; k < 8; ++k) {
        ++op;
        d.on_release_sync(kHostAgent, sync_key(SyncKind::EnqueuedOp, op));
        d.on_acquire_sync(stream_agent(s), sync_key(SyncKind::EnqueuedOp, op));
        d.on_access(stream_agent(s), op, b, info.chunk.addr == 0 ? AddrRange{0, 4096} : AddrRange{info.chunk.addr, 4096},
                    false, ++t);
        d.on_access(stream_agent(s), op, b, {info.chunk.addr, 4096}, true, ++t);
        accesses += 2;
      }
      d.on_release_sync(stream_agent(s), sync_key(SyncKind::Event, std::uint64_t(it)));
      d.on_acquire_sync(kHostAgent, sync_key(SyncKind::Event, std::uint64_t(it)));
      d.on_host_release(info, t);
      d.on_pool_free(kHostAgent, info.chunk, b, t);
    }
    RaceReport r = d.finish();
    benchmark::DoNotOptimize(r.latent);
  }
  state.SetItemsProcessed(std::int64_t(accesses));
}
BENCHMARK(BM_DetectorPerAccess)->Unit(benchmark::kMillisecond);

// A training-loop scenario: per step, alloc an activation, a few kernels reading/writing it and
// weights, release it (immediate); every 8th step the autotuner zeroes scratch on its own stream.
static Scenario loop_scenario(int steps) {
  Scenario sc;
  sc.name = "bench-race-loop";
  Program& p = sc.program;
  p.streams = {{"compute", true}, {"autotune", false}};
  const BufferId weights = 0;
  p.buffer_names.push_back("weights");
  auto kernel = [](StreamId s, std::vector<BufferAccess> r, std::vector<BufferAccess> w) {
    HostOp op;
    op.kind = HostOpKind::Kernel;
    op.stream = s;
    op.duration = Duration::fixed(2000);
    op.reads = std::move(r);
    op.writes = std::move(w);
    return op;
  };
  HostOp a;
  a.kind = HostOpKind::Alloc;
  a.stream = 0;
  a.buffer = weights;
  a.bytes = 1 << 20;
  p.ops.push_back(a);
  for (int i = 0; i < steps; ++i) {
    BufferId act = BufferId(p.buffer_names.size());
    p.buffer_names.push_back("act" + std::to_string(i));
    HostOp al;
    al.kind = HostOpKind::Alloc;
    al.stream = 0;
    al.buffer = act;
    al.bytes = 256 << 10;
    p.ops.push_back(al);
    p.ops.push_back(kernel(0, {{weights}}, {{act}}));
    p.ops.push_back(kernel(0, {{act}, {weights}}, {{act}}));
    p.ops.push_back(kernel(0, {{act}}, {{weights}}));
    HostOp rel;
    rel.kind = HostOpKind::Release;
    rel.buffer = act;
    p.ops.push_back(rel);
    if (i % 8 == 0) {
      BufferId scratch = BufferId(p.buffer_names.size());
      p.buffer_names.push_back("scratch" + std::to_string(i));
      HostOp sa = al;
      sa.stream = 1;
      sa.buffer = scratch;
      p.ops.push_back(sa);
      HostOp ms;
      ms.kind = HostOpKind::Memset;
      ms.stream = 1;
      ms.duration = Duration::fixed(500);
      ms.writes = {{scratch}};
      p.ops.push_back(ms);
      HostOp sr = rel;
      sr.buffer = scratch;
      p.ops.push_back(sr);
    }
  }
  return sc;
}

// Runs `sc` under each (policy, guard) of `combos` with detection off, off with a no-op observer
// attached (the engine's cost of emitting observer calls) and on, alternating inside one benchmark
// run; counters give the mean per-iteration times (thread CPU time: the machine is shared), the
// median of the iterations' on/off ratios (on_off_ratio) and the latent races found.
using Combo = std::pair<std::string, std::string>;
static void measure_on_off(benchmark::State& state, const Scenario& sc, const std::vector<Combo>& combos,
                           const Params& params) {
  std::vector<std::pair<std::unique_ptr<FreePolicy>, std::unique_ptr<Guard>>> runs;
  for (const Combo& c : combos) {
    runs.emplace_back(make_policy(c.first, params), make_guard(c.second, params));
    if (!runs.back().first || !runs.back().second) {
      state.SkipWithError("policy or guard not registered");
      return;
    }
  }
  struct NoOp : Observer {} noop;
  double secs[3] = {0, 0, 0};  // off, off + no-op observer, on
  std::vector<double> ratios;  // per iteration: on / off of the same iteration's runs
  std::uint64_t latent = 0;
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
  };
  for (auto _ : state) {
    latent = 0;
    double iter[3] = {0, 0, 0};
    for (auto& [policy, guard] : runs)
      for (int mode = 0; mode < 3; ++mode) {
        SimOptions o;
        o.semaphore = sc.semaphore;
        o.params = params;
        o.platform = sc.platform;
        o.detect_races = mode == 2;
        if (mode == 1) o.observers.push_back(&noop);
        double t0 = cpu_now();
        RunResult r = simulate(sc, *policy, *guard, o);
        iter[mode] += cpu_now() - t0;
        if (mode == 2) latent += r.races_latent;
        benchmark::DoNotOptimize(r.makespan_ns);
      }
    for (int mode = 0; mode < 3; ++mode) secs[mode] += iter[mode];
    if (iter[0] > 0) ratios.push_back(iter[2] / iter[0]);
  }
  // The median of per-iteration ratios: an iteration's off and on runs are a few milliseconds
  // apart, so a slow phase of the (shared) machine mostly hits both; summed times mix phases.
  std::sort(ratios.begin(), ratios.end());
  const double n = double(state.iterations());
  state.counters["off_ms"] = secs[0] * 1e3 / n;
  state.counters["noop_obs_ms"] = secs[1] * 1e3 / n;
  state.counters["on_ms"] = secs[2] * 1e3 / n;
  state.counters["on_off_ratio"] = ratios.empty() ? 0 : ratios[ratios.size() / 2];
  state.counters["latent"] = double(latent);
  state.counters["host_ops"] = double(sc.program.ops.size());
  state.counters["runs"] = double(runs.size());
}

static Scenario scaled_builtin(benchmark::State& state, const std::string& name, const std::string& key, double value) {
  Params overrides;
  overrides.set(key, value);
  try {
    return load_scenario(name, overrides);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return {};
  }
}

// The worst case: every step's activation is reused by the next step while still in use, so nearly
// every access races (one latent pair per allocation).
static void BM_SimulateRaceOnOffRatio(benchmark::State& state) {
  Scenario sc = loop_scenario(int(state.range(0)));
  measure_on_off(state, sc, {{"immediate", "none"}}, Params{});
}
BENCHMARK(BM_SimulateRaceOnOffRatio)->Arg(20000)->Unit(benchmark::kMillisecond);

// The built-in scenarios scaled up to ~10^4-10^5 host ops, each under its own default policy and
// guard (immediate + none for all but shutdown-order: the racy configuration they reproduce).
static void BM_ScenarioRaceOnOffRatio(benchmark::State& state, const std::string& name, const std::string& key,
                                      double value) {
  Scenario sc = scaled_builtin(state, name, key, value);
  if (sc.program.ops.empty()) return;
  measure_on_off(state, sc, {{sc.default_policy, sc.default_guard}}, sc.params);
}
BENCHMARK_CAPTURE(BM_ScenarioRaceOnOffRatio, training_churn, "training-churn", "steps", 600)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScenarioRaceOnOffRatio, conv_autotune, "conv-autotune", "epochs", 400)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScenarioRaceOnOffRatio, seed_repro, "seed-repro", "trials", 8000)
    ->Unit(benchmark::kMillisecond);

// A sweep, the way reports are made: every policy x guard on one scenario; times are summed.
static void BM_SweepRaceOnOffRatio(benchmark::State& state, const std::string& name, const std::string& key,
                                   double value) {
  Scenario sc = scaled_builtin(state, name, key, value);
  if (sc.program.ops.empty()) return;
  std::vector<Combo> combos;
  for (const RegistryEntry& p : list_policies())
    for (const RegistryEntry& g : list_guards()) combos.emplace_back(p.name, g.name);
  measure_on_off(state, sc, combos, sc.params);
}
BENCHMARK_CAPTURE(BM_SweepRaceOnOffRatio, conv_autotune, "conv-autotune", "epochs", 40)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SweepRaceOnOffRatio, training_churn, "training-churn", "steps", 60)
    ->Unit(benchmark::kMillisecond);

// The detector alone on the observer calls of the ratio scenario, recorded once and replayed: the
// part of on_ms - off_ms that is the detector's own work (the rest is the engine's call overhead
// and cache effects).
namespace {
struct Call {
  enum Kind : std::uint8_t { Rel, Acq, Access, Alloc, HostRel, PoolFree, Span } kind = Rel;
  AgentId a = 0;
  std::uint64_t key = 0;
  BufferId buf = -1;
  AddrRange range;
  bool write = false;
  TimeNs t = 0;
  BufferInfo info;
  Chunk chunk;
  DeviceOpSpan span;
};
struct Recorder : Observer {
  std::vector<Call> calls;
  static Call make(Call::Kind k, AgentId a = 0) {
    Call c;
    c.kind = k;
    c.a = a;
    return c;
  }
  void on_release_sync(AgentId a, std::uint64_t k) override {
    Call c = make(Call::Rel, a);
    c.key = k;
    calls.push_back(c);
  }
  void on_acquire_sync(AgentId a, std::uint64_t k) override {
    Call c = make(Call::Acq, a);
    c.key = k;
    calls.push_back(c);
  }
  void on_access(AgentId a, std::uint64_t op, BufferId b, AddrRange r, bool w, TimeNs t) override {
    Call c = make(Call::Access, a);
    c.key = op, c.buf = b, c.range = r, c.write = w, c.t = t;
    calls.push_back(c);
  }
  void on_alloc(AgentId a, const BufferInfo& b, TimeNs t) override {
    Call c = make(Call::Alloc, a);
    c.info = b, c.t = t;
    calls.push_back(c);
  }
  void on_host_release(const BufferInfo& b, TimeNs t) override {
    Call c = make(Call::HostRel);
    c.info = b, c.t = t;
    calls.push_back(c);
  }
  void on_pool_free(AgentId a, const Chunk& ch, BufferId b, TimeNs t) override {
    Call c = make(Call::PoolFree, a);
    c.chunk = ch, c.buf = b, c.t = t;
    calls.push_back(c);
  }
  void on_device_op(const DeviceOpSpan& sp) override {
    Call c = make(Call::Span);
    c.span = sp;
    c.span.label = "kernel";
    calls.push_back(c);
  }
};
}  // namespace

static void BM_DetectorReplay(benchmark::State& state) {
  Scenario sc = loop_scenario(int(state.range(0)));
  Params params;
  auto policy = make_policy("immediate", params);
  auto guard = make_guard("none", params);
  if (!policy || !guard) {
    state.SkipWithError("immediate policy / none guard not registered");
    return;
  }
  Recorder rec;
  SimOptions o;
  o.detect_races = false;
  o.observers.push_back(&rec);
  simulate(sc, *policy, *guard, o);
  for (auto _ : state) {
    RaceDetector d;
    for (const Call& c : rec.calls) switch (c.kind) {
        case Call::Rel: d.on_release_sync(c.a, c.key); break;
        case Call::Acq: d.on_acquire_sync(c.a, c.key); break;
        case Call::Access: d.on_access(c.a, c.key, c.buf, c.range, c.write, c.t); break;
        case Call::Alloc: d.on_alloc(c.a, c.info, c.t); break;
        case Call::HostRel: d.on_host_release(c.info, c.t); break;
        case Call::PoolFree: d.on_pool_free(c.a, c.chunk, c.buf, c.t); break;
        case Call::Span: d.on_device_op(c.span); break;
      }
    RaceReport r = d.finish();
    benchmark::DoNotOptimize(r.latent);
  }
  state.SetItemsProcessed(std::int64_t(rec.calls.size()) * state.iterations());
  state.counters["calls"] = double(rec.calls.size());
}
BENCHMARK(BM_DetectorReplay)->Arg(20000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
