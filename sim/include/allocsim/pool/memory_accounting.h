// MemoryAccounting: a device's live / pending / in-use / pool bytes and their peaks.
//
// Why it exists: the peaks are the result both backends report, so they are computed once, here,
// from what the backend feeds in (the observer events' vocabulary: an allocation, a host
// release, a pool free) and from the pools' own totals (DevicePools). A backend only says when:
// it calls sample(t) after anything that may change the pools, and the counters reach its
// observers through the sink whenever they changed.
//
// live = requested bytes the host holds; pending = released by the host, not yet freed into the
// pool; in_use = chunk bytes the pools hand out (live + pending, rounded to chunks); pool = bytes
// the pools hold from the device (docs/design.md section 6).
//
// A host release moves live -> pending at once but its sample is deferred: if the host's next
// pool call is that chunk's free (policy `immediate`), the bytes go live -> free in one sample
// and pending never shows. The backend calls flush() when the host does anything else first
// (time passes, it blocks, another agent runs), which samples the pending state at the release's
// time.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>

#include "allocsim/core/backend.h"
#include "allocsim/core/observer.h"
#include "allocsim/core/result.h"
#include "allocsim/pool/device_pools.h"

namespace allocsim {

struct MemoryPeak {
  std::uint64_t bytes = 0;
  TimeNs time = 0;  // first time the peak was reached
};
struct MemoryPeaks {
  MemoryPeak in_use, live, pending, pool;
};

class MemoryAccounting {
 public:
  /// Receives the counters at time t each time they changed (Observer::on_memory).
  using Sink = std::function<void(TimeNs t, const MemoryCounters& m)>;

  explicit MemoryAccounting(const DevicePools& pools, Sink sink = {})
      : pools_(pools), sink_(std::move(sink)) {}

  /// A successful allocation: its requested bytes become live.
  void on_alloc(const BufferInfo& buf);
  /// The host dropped the buffer: live -> pending, sampled later (see the top of this file).
  void on_host_release(const BufferInfo& buf, TimeNs t);
  /// The chunk went back to its pool (or its pool is gone): its allocation leaves live/pending.
  void on_pool_free(const Chunk& chunk);
  /// Requested bytes of the allocation that owns `chunk` now; nullopt if none does.
  std::optional<std::uint64_t> requested_bytes(const Chunk& chunk) const;

  /// Reads the pools' totals; on any change records peaks and calls the sink. Carries a deferred
  /// release sample with it (that state was never visible on its own).
  void sample(TimeNs t);
  /// Samples a deferred release at the release's time, if one is due (inline: the simulator
  /// calls it whenever host time passes).
  void flush() {
    if (release_at_) sample(*release_at_);
  }

  const MemoryCounters& current() const { return mem_; }
  const MemoryPeaks& peaks() const { return peaks_; }
  /// Copies the peaks into r.peak_* (the engine's part of a RunResult).
  void fill(RunMeasures& r) const;

 private:
  struct Allocation {
    std::uint64_t requested = 0;
    bool released = false;
  };
  // (pool, addr) as one key: a chunk that names the wrong pool finds no allocation.
  static std::uint64_t key(const Chunk& c) { return (std::uint64_t(c.pool) << 60) ^ c.addr; }

  const DevicePools& pools_;
  Sink sink_;
  std::unordered_map<std::uint64_t, Allocation> allocations_;  // by key(chunk) while the chunk is theirs
  MemoryCounters mem_;
  std::optional<MemoryCounters> last_sampled_;  // what the sink last got; nullopt before the first
  MemoryPeaks peaks_;
  std::optional<TimeNs> release_at_;
};

}  // namespace allocsim
