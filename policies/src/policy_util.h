// Small helpers shared by the free-policy files. Like the policies themselves, they use only the
// Backend interface (core/backend.h), so everything here runs unchanged on the sim and HIP backends.
#pragma once
#include <map>
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
/// Read by the backends' host-callback enqueue (callback_enqueue_failure() in core/backend.h, which
/// owns the key and the default) for the policies that free through free_after_stream.
inline constexpr ParamSpec kCallbackEnqueueFailure{
    .key = kCallbackEnqueueFailureKey,
    .default_value = kCallbackEnqueueFailureDefault,
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

/// Releases whose bytes went back to the shared pool while device work on them may still be
/// queued, by byte range, so that a later allocation for another stream can be ordered after them.
/// stream-aware's rule, also used by event-poll and timestamp-frontier to give the shared pool the
/// per-stream reuse of the allocators they model (their banners say where that differs).
class ReleaseRecords {
 public:
  /// Records an event on `stream` now and remembers it for `chunk`'s bytes.
  void add(Backend& b, const Chunk& chunk, StreamId stream);
  /// After `buf` was allocated: for each remembered release overlapping its chunk on a stream
  /// other than buf.alloc_stream, the host polls the event; done: the record is dropped (the host
  /// is ordered after it); not done: buf.alloc_stream waits on it. Same-stream records need
  /// nothing (stream order). A record wholly inside the new chunk is then dropped: its obligation
  /// passes to the new buffer, whose release records an event on its allocation stream (so the
  /// policy must add one for the allocation stream at every release).
  void order_after(Backend& b, const BufferInfo& buf);
  /// Destroys every remembered event (after a device-wide sync, or at shutdown).
  void clear(Backend& b);
  bool empty() const { return records_.empty(); }

 private:
  using Key = std::pair<PoolId, Addr>;  // (pool, range begin)
  struct Record {
    std::uint64_t bytes;
    StreamId stream;  // where the event was recorded
    EventId event;
  };
  std::multimap<Key, Record> records_;         // releases not known complete, by (pool, address)
  std::map<PoolId, std::uint64_t> max_bytes_;  // largest remembered range per pool (bounds the search)
};

}  // namespace allocsim::policy_util
