// allocsim core vocabulary: time, ids, address ranges.
// Shared by every part (sim, policies, scenarios, results, hw); keep it tiny and stable.
#pragma once
#include <cstdint>
#include <limits>
#include <string>

namespace allocsim {

/// Virtual (or measured) time in integer nanoseconds.
using TimeNs = std::int64_t;
inline constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

/// Byte address inside a device pool's address space (sim: fake addresses from 0).
using Addr = std::uint64_t;

using StreamId = std::int32_t;  // index into the backend's stream table
using EventId = std::int32_t;   // index into the backend's event table
using BufferId = std::int32_t;  // the host program's buffer handle (dense, from 0)
using PoolId = std::int32_t;    // 0 = the client's shared BFC pool, 1 = private autotune pool
using AgentId = std::int32_t;   // host thread, callback thread, or a stream (race detector clocks)
using MutexId = std::int32_t;   // a named host mutex of the program (index into Program::mutex_names)

inline constexpr StreamId kNoStream = -1;
inline constexpr EventId kNoEvent = -1;
inline constexpr MutexId kNoMutex = -1;
inline constexpr PoolId kSharedPool = 0;
inline constexpr PoolId kPrivatePool = 1;

/// Half-open byte range [begin, begin + bytes).
struct AddrRange {
  Addr begin = 0;
  std::uint64_t bytes = 0;
  Addr end() const { return begin + bytes; }
  bool overlaps(const AddrRange& o) const { return begin < o.end() && o.begin < end(); }
};

}  // namespace allocsim
