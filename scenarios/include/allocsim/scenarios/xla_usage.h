// Which device work of a JAX/XLA profile uses which allocation (docs/xla.md, "Buffers and the
// device work that uses them"). A profile has no per-kernel buffer lists, so this is a model:
//
//  - device ops launched by a compiled program (`hlo_module` = P) are split over P's executions
//    in order (streams run FIFO and executions of P launch the same thunks): each execution gets
//    (ops of P) / (executions of P) consecutive ops in device order, the first one the remainder
//    too (a program's first run does one-time work);
//  - an allocation made by a host thread other than a compile thread is used by the device work
//    of every execution whose host span overlaps the allocation's host lifetime [alloc, free);
//  - an allocation made by a compile thread (autotuner scratch) is used by the device ops of no
//    execution (no `hlo_module`, or a module without execution spans: the autotuner compiles each
//    candidate instruction as a module of its own, e.g. `cudnn-conv.4`), on any stream, that start
//    within its lifetime.
//
// The program replay (xla_program.h) and the hazard analysis (xla_hazards.h) both read this, so
// they agree on what uses what.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "allocsim/scenarios/xla_profile.h"

namespace allocsim::xla {

/// Which part of the runtime a host thread is, from its line name.
enum class ThreadRole : std::uint8_t {
  kHost,      // the program's own threads (python3, ...): its frees follow the host refcount
  kCompile,   // tf_pjrt_compile_thread_pool/...: compilation and the autotuner
  kCallback,  // py_xla_callback/...: frees XLA deferred until the device passed their last use
};
ThreadRole thread_role(std::string_view thread_name);
std::string_view role_name(ThreadRole role);

inline constexpr std::int64_t kNeverPs = std::numeric_limits<std::int64_t>::max();

/// One allocation of the profile (a MemoryAllocation event and its MemoryDeallocation, if any).
struct UsedBuffer {
  std::size_t alloc_event = 0;            // index into Profile::events
  std::optional<std::size_t> free_event;  // none: still live when the capture stopped
  ThreadRole alloc_role = ThreadRole::kHost;
  ThreadRole free_role = ThreadRole::kHost;  // meaningful with free_event
  Addr addr = 0;
  std::uint64_t bytes = 0;  // the chunk's size
  std::int64_t alloc_ps = 0, free_ps = kNeverPs;
  std::vector<std::uint32_t> executions;  // executions whose device work uses it, in order
  std::vector<std::uint32_t> ops;  // device ops that use it (indices into Profile::device_ops), by start
};

struct Usage {
  std::optional<std::uint32_t> compute_stream;            // the stream with the most execution ops
  std::vector<std::int32_t> op_execution;                 // per device op: its execution, or -1
  std::vector<std::vector<std::uint32_t>> execution_ops;  // per execution: its device ops, by start
  std::vector<UsedBuffer> buffers;                        // in allocation order
  std::vector<std::uint32_t> event_buffer;                // per allocator event: its buffer
};

/// Builds the model. Throws ProfileError when the allocator's record contradicts itself (a free
/// of an address no live allocation has, an allocation at a live address).
Usage map_usage(const Profile& profile);

}  // namespace allocsim::xla
