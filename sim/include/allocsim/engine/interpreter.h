// The host-program interpreter: turns each HostOp into a Plan of Steps that the Device's host
// thread executes. Backend-agnostic on purpose: it depends only on core/device.h and
// core/policy.h, so the sim backend (virtual time) and the HIP backend (real GPU) run the very
// same op semantics, policy calls and lifetime checks.
//
// Program::preexisting buffers (PyTorch traces: allocated before the recording began) are
// allocated at program start, before op #0, on the compute stream, so their releases free real
// memory. One whose size is unknown (0) is not allocated; its release is ignored with a warning.
//
// What it owns: the buffer table (BufferInfo + lifetime state per BufferId) and the mapping from
// program events to backend events (created lazily). What it decides: which pool an allocation
// uses (guard.pool_for for non-compute streams), the OOM retry loop (policy.on_oom), and which ops
// are skipped because they touch a buffer that failed to allocate or was already released.
// What it reports through Device: allocations, host releases, OOMs and lifetime violations
// (double-free, use-after-release, unknown-free, leak).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "allocsim/core/device.h"
#include "allocsim/core/policy.h"

namespace allocsim {

class Interpreter {
 public:
  enum class BufferState : std::uint8_t { Unallocated, Live, Released, Failed };

  Interpreter(const Program& program, Device& device, FreePolicy& policy, Guard& guard);

  /// Appends the steps of the next host op to `plan`; false once the program has ended.
  /// An op that cannot run (bad index, failed buffer) yields an empty plan and returns true.
  bool next(Plan& plan);
  /// End of program: every buffer still live is a leak (reported through Device).
  void finish();

  /// Index of the op most recently planned (for "host blocked at op #k" messages); npos before.
  std::size_t position() const { return cursor_ == 0 ? npos : cursor_ - 1; }
  const HostOp* current_op() const { return cursor_ == 0 ? nullptr : &program_.ops[cursor_ - 1]; }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  const BufferInfo& buffer(BufferId b) const { return buffers_[std::size_t(b)]; }
  BufferState state(BufferId b) const { return state_[std::size_t(b)]; }
  std::size_t skipped_ops() const { return skipped_ops_; }

 private:
  bool is_compute(StreamId s) const { return s == device_.compute_stream(); }
  bool valid_stream(StreamId s) const { return s >= 0 && std::size_t(s) < program_.streams.size(); }
  bool valid_buffer(BufferId b) const { return b >= 0 && std::size_t(b) < buffers_.size(); }
  EventId backend_event(EventId program_event);
  void bad_op(const HostOp& op, const char* what);

  void plan_preexisting(Plan& plan);
  void plan_alloc(const HostOp& op, Plan& plan);
  Step alloc_attempt(BufferId b, StreamId s, PoolId pool, std::uint64_t bytes, int attempt, TimeNs first_failure);
  void plan_release(const HostOp& op, Plan& plan);
  void plan_device_op(const HostOp& op, Plan& plan);
  void plan_end_execution(Plan& plan);
  void plan_shutdown(const HostOp& op, Plan& plan);
  void plan_mutex_op(const HostOp& op, Plan& plan);
  /// Resolves accesses to absolute ranges; false (op skipped) if a buffer is not usable.
  bool resolve(const std::vector<BufferAccess>& in, std::vector<DeviceAccess>& out, const HostOp& op);

  const Program& program_;
  Device& device_;
  FreePolicy& policy_;
  Guard& guard_;
  std::size_t cursor_ = 0;
  std::vector<BufferInfo> buffers_;
  std::vector<BufferState> state_;
  std::vector<std::uint8_t> preexisting_;  // 1: Program::preexisting (allocated at start when its size is known)
  struct StartAlloc {
    BufferId buffer;
    std::uint64_t bytes;
  };
  std::vector<StartAlloc> start_allocs_;  // preexisting buffers of known size, in Program order
  bool started_ = false;
  std::vector<EventId> events_;  // program event -> backend event (kNoEvent until first use)
  std::size_t skipped_ops_ = 0;
};

}  // namespace allocsim
