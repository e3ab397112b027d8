// Test-only helpers for the engine tests: a tiny Program builder, an immediate free policy and a
// "none" guard (the real ones live in policies/; these keep the engine tests independent of them).
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "allocsim/core/policy.h"
#include "allocsim/core/scenario.h"
#include "engine/event_log.h"
#include "allocsim/engine/simulate.h"

namespace allocsim::test {

inline HostOp make_op(HostOpKind k) {
  HostOp op;
  op.kind = k;
  return op;
}

class ImmediatePolicy final : public FreePolicy {
 public:
  std::string_view name() const override { return "test-immediate"; }
  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    const Chunk c = buf.chunk;
    const BufferId id = buf.id;
    plan.push_back(Step::run([c, id](Backend& b, Plan&) { b.pool_free(c, id); }));
  }
};

/// Frees through ThenExecuteCallback(compute): exercises the callback path.
class CallbackPolicy final : public FreePolicy {
 public:
  std::string_view name() const override { return "test-callback"; }
  void on_release(Backend&, const BufferInfo& buf, Plan& plan) override {
    const Chunk c = buf.chunk;
    const BufferId id = buf.id;
    plan.push_back(Step::run([c, id](Backend& b, Plan&) {
      if (!b.then_execute_callback(b.compute_stream(), [c, id](Backend& cb) { cb.pool_free(c, id); }, "free")) {
        b.count_fallback();
        b.pool_free(c, id);
      }
    }));
  }
};

class NoGuard final : public Guard {
 public:
  std::string_view name() const override { return "test-none"; }
};

/// Builds a Program op by op. Streams: "compute" (0) plus the names given.
class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::vector<std::string> extra_streams = {}) {
    p_.streams.push_back({"compute", true});
    for (auto& s : extra_streams) p_.streams.push_back({s, false});
  }
  BufferId buffer(const std::string& name) {
    p_.buffer_names.push_back(name);
    return BufferId(p_.buffer_names.size() - 1);
  }
  EventId event(const std::string& name) {
    p_.event_names.push_back(name);
    return EventId(p_.event_names.size() - 1);
  }
  ProgramBuilder& alloc(BufferId b, StreamId s, std::uint64_t bytes) {
    HostOp op = make_op(HostOpKind::Alloc);
    op.buffer = b, op.stream = s, op.bytes = bytes;
    return add(op);
  }
  ProgramBuilder& release(BufferId b) {
    HostOp op = make_op(HostOpKind::Release);
    op.buffer = b;
    return add(op);
  }
  ProgramBuilder& kernel(StreamId s, Duration d, std::vector<BufferId> reads = {}, std::vector<BufferId> writes = {},
                         HostOpKind kind = HostOpKind::Kernel) {
    HostOp op = make_op(kind);
    op.stream = s, op.duration = d;
    for (BufferId b : reads) op.reads.push_back({b, 0, 0});
    for (BufferId b : writes) op.writes.push_back({b, 0, 0});
    return add(op);
  }
  ProgramBuilder& kernel(StreamId s, double ns) { return kernel(s, Duration::fixed(ns)); }
  ProgramBuilder& record(EventId e, StreamId s) { return simple(HostOpKind::RecordEvent, s, e); }
  ProgramBuilder& wait(StreamId s, EventId e) { return simple(HostOpKind::StreamWait, s, e); }
  ProgramBuilder& event_sync(EventId e) { return simple(HostOpKind::EventSync, kNoStream, e); }
  ProgramBuilder& event_query(EventId e) { return simple(HostOpKind::EventQuery, kNoStream, e); }
  ProgramBuilder& stream_sync(StreamId s) { return simple(HostOpKind::StreamSync, s, kNoEvent); }
  ProgramBuilder& device_sync() { return simple(HostOpKind::DeviceSync, kNoStream, kNoEvent); }
  ProgramBuilder& begin_execution() { return simple(HostOpKind::BeginExecution, kNoStream, kNoEvent); }
  ProgramBuilder& end_execution() { return simple(HostOpKind::EndExecution, kNoStream, kNoEvent); }
  ProgramBuilder& host_delay(double ns) {
    HostOp op = make_op(HostOpKind::HostDelay);
    op.duration = Duration::fixed(ns);
    return add(op);
  }
  ProgramBuilder& shutdown(bool wrong_order = false) {
    HostOp op = make_op(HostOpKind::Shutdown);
    op.wrong_order = wrong_order;
    return add(op);
  }
  ProgramBuilder& add(HostOp op) {
    op.source_line = std::uint32_t(p_.ops.size() + 1);
    p_.ops.push_back(std::move(op));
    return *this;
  }
  Scenario scenario(const std::string& name = "test") const {
    Scenario s;
    s.name = name;
    s.program = p_;
    s.device.memory_limit = std::uint64_t(1) << 30;
    return s;
  }
  Program& program() { return p_; }

 private:
  ProgramBuilder& simple(HostOpKind k, StreamId s, EventId e) {
    HostOp op = make_op(k);
    op.stream = s, op.event = e;
    return add(op);
  }
  Program p_;
};

/// A platform with round numbers so expected times are easy to compute by hand.
inline PlatformProfile round_platform() {
  PlatformProfile p;
  p.launch_overhead_ns = 10;
  p.event_record_ns = 1;
  p.event_query_ns = 1;
  p.stream_wait_ns = 1;
  p.event_create_ns = 0;
  p.event_destroy_ns = 0;
  p.callback_enqueue_ns = 1;
  p.callback_latency_ns = 100;
  p.callback_run_ns = 50;
  p.host_alloc_ns = 0;
  p.host_free_ns = 0;
  p.release_bookkeeping_ns = 0;
  p.sync_wakeup_ns = 0;
  return p;
}

inline SimOptions quiet_options(int semaphore = 32) {
  SimOptions o;
  o.semaphore = semaphore;
  o.platform = round_platform();
  o.detect_races = false;
  return o;
}

/// Records every device-op span (and the host-blocked intervals) for timing assertions.
struct SpanRecorder final : Observer {
  std::vector<DeviceOpSpan> spans;
  std::vector<std::pair<TimeNs, TimeNs>> blocked;
  std::vector<std::pair<TimeNs, TimeNs>> callbacks;
  std::vector<std::string> callback_names;
  void on_device_op(const DeviceOpSpan& s) override { spans.push_back(s); }
  void on_host_blocked(TimeNs f, TimeNs t, std::string_view) override { blocked.push_back({f, t}); }
  void on_callback_run(TimeNs s, TimeNs e, std::string_view what) override {
    callbacks.push_back({s, e});
    callback_names.emplace_back(what);
  }
  std::vector<DeviceOpSpan> labelled(std::string_view label) const {
    std::vector<DeviceOpSpan> out;
    for (auto& s : spans)
      if (s.label == label) out.push_back(s);
    return out;
  }
};

inline RunResult run(const Scenario& sc, FreePolicy& policy, SimOptions opt, std::vector<Observer*> obs = {}) {
  NoGuard guard;
  opt.observers = std::move(obs);
  return simulate(sc, policy, guard, opt);
}

}  // namespace allocsim::test
