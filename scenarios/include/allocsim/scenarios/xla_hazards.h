// The seed's hazard in a real profile (`allocsim xla-hazards`, docs/xla.md "Hazard analysis"):
// an allocation that got bytes a host thread had freed while device work that may use them (per
// xla_usage.h and the profile's device timeline) was still queued or running.
//
// For every allocation A and every earlier owner B of some of A's bytes (the last allocation
// holding them before A), B freed by a host or compile thread (the callback thread's frees are
// XLA's own deferred ones): B is *in flight* when one of B's device ops ends after B's free. Then
// A's device ops decide:
//  - an op of A on a stream with none of B's in-flight ops is unordered with them: the hazard is
//    **manifest** when the first such op starts before B's in-flight work ends (the two overlap
//    on the device timeline), **latent** when it starts after (the timeline happened to order
//    them; nothing in the program did);
//  - A's ops all on streams of B's in-flight ops: ordered by the stream, no hazard (counted);
//  - A with no device op: nothing touched the bytes while B's work ran (counted).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "allocsim/scenarios/xla_profile.h"
#include "allocsim/scenarios/xla_usage.h"

namespace allocsim::xla {

struct Hazard {
  std::uint32_t buffer = 0;                 // the later allocation A (index into Usage::buffers)
  std::uint32_t owner = 0;                  // the earlier owner B
  Addr overlap_begin = 0, overlap_end = 0;  // the shared bytes (profile addresses)
  std::uint32_t owner_op = 0;  // B's in-flight op that ends last (index into Profile::device_ops)
  std::uint32_t use_op = 0;    // A's first op on a stream without B's in-flight ops
  bool manifest = false;
};

struct HazardReport {
  std::vector<Hazard> hazards;       // by A's allocation, then B's
  std::size_t in_flight_reuses = 0;  // (A, B) pairs with B in flight at its free
  std::size_t stream_ordered = 0;    // of those, A's ops all ordered after B's by their streams
  std::size_t unused = 0;            // of those, A without device ops
  std::size_t manifest() const;
  std::size_t latent() const { return hazards.size() - manifest(); }
};

HazardReport find_hazards(const Profile& profile, const Usage& usage);

/// The human report (summary, then one block per hazard) and the JSON document (--json).
/// Both depend only on the profile.
std::string format_hazards(const Profile& profile, const Usage& usage, const HazardReport& report);
std::string hazards_json(const Profile& profile, const Usage& usage, const HazardReport& report);

}  // namespace allocsim::xla
