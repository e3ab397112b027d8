// Drive one policy / guard hook against the FakeBackend: build the plan, then execute it.
#pragma once
#include "fake_backend.h"

namespace allocsim::test {

inline void release(FreePolicy& p, FakeBackend& b, const BufferInfo& buf) {
  Plan plan;
  p.on_release(b, buf, plan);
  b.execute(std::move(plan));
}
inline void before_alloc(FreePolicy& p, FakeBackend& b, StreamId s = 0, std::uint64_t bytes = 256) {
  Plan plan;
  p.before_allocate(b, s, bytes, plan);
  b.execute(std::move(plan));
}
inline void after_alloc(FreePolicy& p, FakeBackend& b, const BufferInfo& buf) {
  Plan plan;
  p.after_allocate(b, buf, plan);
  b.execute(std::move(plan));
}
inline void end_execution(FreePolicy& p, FakeBackend& b) {
  Plan plan;
  p.on_end_execution(b, plan);
  b.execute(std::move(plan));
}
inline void shutdown(FreePolicy& p, FakeBackend& b) {
  Plan plan;
  p.on_shutdown(b, plan);
  b.execute(std::move(plan));
}
/// on_oom; returns the decision, executes the plan only when the policy asks for a retry.
inline OomDecision oom(FreePolicy& p, FakeBackend& b, int attempt, bool scratch = false, TimeNs first = 0) {
  Plan plan;
  OomDecision d = p.on_oom(b, 0, 1024, scratch, attempt, first, plan);
  if (d.retry) b.execute(std::move(plan));
  return d;
}
inline std::unique_ptr<FreePolicy> policy(std::string_view name, const Params& params = {}) {
  auto p = make_policy(name, params);
  if (!p) throw std::runtime_error("unknown policy " + std::string(name));
  return p;
}

}  // namespace allocsim::test
