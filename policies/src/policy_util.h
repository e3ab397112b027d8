// Small helpers shared by the free-policy files. Like the policies themselves, they use only the
// Backend interface (core/backend.h), so everything here runs unchanged on the sim and HIP backends.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "allocsim/core/backend.h"
#include "allocsim/core/policy.h"

namespace allocsim::policy_util {

/// One released allocation waiting to go back to its pool.
struct Parked {
  Chunk chunk;
  BufferId buffer = -1;
};

/// The streams whose device ops touched `buf`, ascending. Built from use_stream_mask, plus
/// last_use_stream when the mask cannot hold it (stream id >= 64). Empty: no device op ever
/// touched the buffer, so nothing on the device can still be using it.
std::vector<StreamId> use_streams(const BufferInfo& buf);

/// The stream a ThenExecuteCallback-style deferred free is ordered after: the last-use stream, or
/// compute when no device op touched the buffer (PR #979 always uses compute).
StreamId deferred_free_stream(Backend& b, const BufferInfo& buf);

/// A Do step that returns `chunk` to its pool right away.
Step free_now(const Chunk& chunk, BufferId buffer);

/// Parameters that several policies read through a shared path declare one spec, here, and each
/// of those policies lists it in its registration (the registry rejects two differing specs).
///
/// Read by the backend's host-callback enqueue (the sim's SimDevice::add_host_callback) for the
/// policies that free through free_after_stream.
inline constexpr ParamSpec kCallbackEnqueueFailure{
    .key = "callback_enqueue_failure",
    .default_value = 0,
    .min = 0,
    .max = 1,
    .description = "injected probability that a free callback fails to enqueue; that free then happens at once",
};
/// Read by the default OOM path, FreePolicy::on_oom (oom_default.cpp).
inline constexpr ParamSpec kOomRetryTimeout{
    .key = "oom_retry_timeout_ns",
    .default_value = 10e9,
    .min = 0,
    .max = 1e15,  // days; bounded so that first failure + timeout stays within TimeNs
    .whole = true,
    .description = "ns a failed allocation keeps waiting for frees and retrying before the OOM is final",
};

/// ThenExecuteCallback(stream, free all of `chunks`). If the callback enqueue fails, counts a
/// fallback, logs `<who>: callback enqueue failed (...); freed immediately` and frees them now:
/// the PR #979 fallback, which re-opens the race it was meant to close.
void free_after_stream(Backend& b, StreamId stream, std::vector<Parked> chunks, std::string_view who);

/// An event recorded on one of a released buffer's use streams.
struct StreamEvent {
  StreamId stream = kNoStream;
  EventId event = kNoEvent;
};

/// The release step of the polling policies (event-poll, timestamp-frontier): a buffer no device
/// op touched is freed now; otherwise a Do step records one event on each stream that used it and
/// hands the chunk and those events to `park`, which keeps them until the events are seen done.
void park_after_events(const BufferInfo& buf, Plan& plan,
                       std::function<void(Backend&, const Parked&, const std::vector<StreamEvent>&)> park);

}  // namespace allocsim::policy_util
