// A JAX/XLA profile (TSL's XSpace protobuf, `*.xplane.pb`, as `jax.profiler` writes it) reduced to
// what allocsim needs: the device BFC allocator's own calls, the GPU streams' device work and the
// host's execute spans (docs/xla.md).
//
// The allocator's events are tsl::BFCAllocator's `MemoryAllocation` / `MemoryDeallocation`
// instant events on the host thread that made the call. Their stats (bytes in use, peak,
// available) are read by the allocator under its lock right after the call, so they are
// after-the-event values, and the events' timestamps, taken there too, give the allocator's own
// order: events are kept sorted by time (ties: plane line order, then order within the line).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "allocsim/core/types.h"

namespace allocsim::xla {

/// Bad profile input: unreadable, truncated, not an XSpace, no (or an unknown) allocator.
/// what() is "SOURCE: message"; the CLI prints it and exits 2.
class ProfileError : public std::runtime_error {
 public:
  ProfileError(const std::string& source, const std::string& message)
      : std::runtime_error(source + ": " + message) {}
};

/// One call of the allocator, with the stats it recorded right after it.
struct AllocatorEvent {
  enum class Kind : std::uint8_t { kAlloc, kFree };
  Kind kind = Kind::kAlloc;
  std::uint32_t thread = 0;  // index into Profile::threads
  Addr addr = 0;             // the chunk's address
  std::uint64_t requested_bytes = 0;
  std::uint64_t allocation_bytes = 0;  // the chunk's size (also on frees: the chunk being freed)
  std::uint64_t bytes_allocated = 0;   // bytes in use after the call
  std::uint64_t peak_bytes_in_use = 0;
  std::uint64_t bytes_available = 0;  // memory_limit - bytes_reserved - bytes in use
  std::int64_t time_ps = 0;           // from Profile::origin_ns
};

/// A kernel, memset or copy on one GPU stream, at its device times.
struct DeviceOp {
  std::uint32_t stream = 0;   // index into Profile::streams
  std::uint32_t name = 0;     // index into Profile::op_names
  /// The XLA program whose thunk launched it (the `hlo_module` stat, e.g. "jit_step"), as an index
  /// into Profile::modules; 0 ("") for work no program launched (autotuning, transfers).
  std::uint32_t module = 0;
  std::int64_t start_ps = 0;  // from Profile::origin_ns
  std::int64_t duration_ps = 0;
};

/// One host-side execution of a compiled program (PjRt's Execute span).
struct ExecuteSpan {
  std::uint32_t thread = 0;   // index into Profile::threads
  std::string program;        // e.g. "jit_step"
  std::int64_t start_ps = 0;  // from Profile::origin_ns
  std::int64_t duration_ps = 0;
};

struct Profile {
  std::string source;                  // file it was read from (for messages)
  std::string allocator;               // the allocator whose events these are
  std::int64_t origin_ns = 0;          // every time is in picoseconds from here (the earliest line start)
  std::vector<std::string> threads;    // host lines with a kept event, in file order
  std::vector<AllocatorEvent> events;  // the allocator's calls, in its own order
  std::size_t allocs = 0, frees = 0;
  std::vector<std::string> streams;     // GPU stream line names, in plane order
  std::vector<std::string> op_names;    // distinct device op names
  std::vector<std::string> modules{""};  // distinct hlo_module values; [0] = none
  std::vector<DeviceOp> device_ops;     // sorted by start (ties: stream, then line order)
  std::vector<ExecuteSpan> executes;    // sorted by start
  std::vector<std::string> allocators;  // every allocator that has events, sorted (for messages)
};

/// The allocator XLA's GPU client gives device 0 (the pinned-host pool is `xla_gpu_host_bfc`).
inline constexpr std::string_view kDefaultAllocator = "GPU_0_bfc";

/// Parses XSpace bytes (not compressed). `source` names the input in messages.
Profile parse_profile(std::string_view xspace_bytes, const std::string& source,
                      std::string_view allocator = kDefaultAllocator);

/// `path` itself, or for a profile directory the one `*.xplane.pb[.gz]` under
/// `plugins/profile/<run>/` (or directly in it); ProfileError if there is none or more than one.
std::string find_profile_file(const std::string& path);

/// The XSpace bytes of a `.xplane.pb` file, or of gzip of one (detected by its magic bytes).
std::string read_profile_bytes(const std::string& file);

/// find_profile_file + read_profile_bytes + parse_profile.
Profile read_profile(const std::string& path, std::string_view allocator = kDefaultAllocator);

}  // namespace allocsim::xla
