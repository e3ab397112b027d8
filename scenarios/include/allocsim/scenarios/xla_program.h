// A JAX/XLA profile as a host program: `allocsim run PROFILE` and `allocsim sweep PROFILE` replay
// the real program under any free policy and guard (docs/xla.md, "The profile as a program").
//
//  - every item happens at its profile time; the gaps between them are HostDelay;
//  - an execution (PjRt's Execute span) is BeginExecution at its start and EndExecution at its
//    end; its device ops (xla_usage.h) are enqueued, at their measured durations on their own
//    streams, at its launch point: the span's end, or earlier, just before the first free inside
//    the span of a buffer it uses (the host drops a donated input only after launching);
//  - the allocator's calls are Alloc / Release in the allocator's own order. A host thread's free
//    is a plain Release: the free policy decides when the bytes return. A free the callback thread
//    made (XLA already deferred it behind the device) is an EventQuery of the last launched
//    execution that used the buffer followed by the Release: it happens at its measured time and
//    is ordered after that execution's device work when the replay's device is done by then;
//  - compile-thread allocations (autotuner scratch) are Allocs on the stream of the first op that
//    uses them (compute when none does); device ops of no execution (the autotuner's kernels,
//    memsets and copies, on whatever stream the profile shows) are enqueued at their measured
//    start, touching the compile-thread buffers live then that use them; a compile thread's free
//    first waits (EventSync) for the buffer's last op on each stream it used, as the autotuner
//    synchronises before freeing;
//  - a buffer's accesses: an execution's first op reads (a memset writes) and its last op writes
//    each buffer the execution uses that is live at its launch point; autotune ops write theirs.
//
// `--set xla_autotune_scratch=0` leaves the compile threads' allocations out (their device ops
// stay): every free policy applies to every Release, but a change to PjRt's buffer release (PR
// #979) would not touch the autotuner's own frees, so a sweep with and without them brackets
// what such a policy costs.
#pragma once
#include <string>
#include <string_view>

#include "allocsim/core/params.h"
#include "allocsim/core/scenario.h"
#include "allocsim/scenarios/loader.h"
#include "allocsim/scenarios/xla_profile.h"

namespace allocsim::xla {

/// The scenario's own `--set` key: 1 (default) replays the compile threads' allocations, 0 not.
inline constexpr std::string_view kAutotuneScratchKey = "xla_autotune_scratch";

/// Whether `path` names a profile (`*.xplane.pb`, `*.xplane.pb.gz`, or a directory holding one
/// under plugins/profile/<run>/): load_scenario hands those to load_xla_profile.
bool looks_like_profile(const std::string& path);

/// The replay scenario of a parsed profile. Throws ScenarioError for a bad `--set` key or value.
Scenario profile_scenario(const Profile& profile, const Params& overrides = {},
                          const LoadLimits& limits = {});

/// read_profile + profile_scenario; a ProfileError becomes a ScenarioError (the loader's error).
Scenario load_xla_profile(const std::string& path, const Params& overrides = {},
                          const LoadLimits& limits = {});

}  // namespace allocsim::xla
