// The exact check of a JAX/XLA profile: replay the device allocator's calls, in its own order,
// through the BFC pool model and compare every event with what the real allocator recorded
// (`allocsim xla-check`, docs/xla.md).
//
// Per event: the chunk size, the chunk's offset from its region's base, the bytes in use after
// the call and the peak so far. The replay's regions live at fake addresses; each is paired with
// the real region the profile's first allocation in it reveals (a new region's first chunk starts
// at its base in both), so offsets compare region by region whether the pool preallocates one
// region or grows.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "allocsim/pool/bfc_pool.h"
#include "allocsim/scenarios/xla_profile.h"

namespace allocsim::xla {

/// The pool options a profile implies, each with the evidence it was read from.
struct InferredOptions {
  BfcOptions options;
  std::string limit_evidence;
  std::string growth_evidence;
};

/// How the pool's growth is decided: read from the profile's addresses, or given.
enum class Growth : std::uint8_t { kInfer, kOn, kOff };

/// memory_limit = bytes_available + bytes_allocated (the same at every event, else ProfileError);
/// growth (kInfer): off when every chunk lies within memory_limit above the first allocation (the
/// one preallocated region starts there), on otherwise. A growing pool whose regions all happen
/// to sit in that window reads as preallocating; the check then reports the first event where the
/// two differ rather than passing, and kOn checks it as the growing pool it is.
InferredOptions infer_options(const Profile& profile, Growth growth = Growth::kInfer);

/// What the replay's pool said at one event.
struct ReplayedEvent {
  std::uint64_t chunk_bytes = 0;
  std::uint32_t region = 0;  // index of the region (in the order the pool took them)
  std::uint64_t offset = 0;  // from that region's base
  std::uint64_t bytes_in_use = 0;
  std::uint64_t peak_bytes_in_use = 0;
  bool placed = true;  // false: the replay's allocation failed (out of memory)
};

/// The profile's side of the same event, in the same terms.
struct ProfileSide {
  std::uint64_t chunk_bytes, offset, bytes_in_use, peak_bytes_in_use;
};

struct CheckResult {
  InferredOptions inferred;
  std::vector<ReplayedEvent> replayed;  // one per event replayed: all, or up to the mismatch
  std::vector<ProfileSide> expected;    // the profile's values for the same events
  std::optional<std::size_t> mismatch;  // index of the first event that differs
  std::vector<Addr> region_bases;       // the profile's address of each replay region
  std::uint64_t peak_bytes_in_use = 0;  // the replay's, over the events replayed
  std::size_t live_at_end = 0;          // allocations never freed (when all events matched)

  bool matched() const { return !mismatch; }
};

/// Replays and compares; stops at the first mismatch (everything after it would differ too).
/// Throws ProfileError when the profile contradicts itself (a free of an address no earlier
/// allocation returned, an allocation at a live address, a changing memory limit).
CheckResult check_profile(const Profile& profile, Growth growth = Growth::kInfer);

/// The human report `allocsim xla-check` prints: profile, options, summary and, on a mismatch,
/// the first differing event with `context` events either side. Deterministic.
std::string format_check(const Profile& profile, const CheckResult& result, std::size_t context = 3);

}  // namespace allocsim::xla
