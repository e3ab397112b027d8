// The lifetime findings of one sim run: double free, use after release, unknown free, a free into a
// destroyed pool (a callback after shutdown), leak. This is the only place that counts them.
//
// Why the engine (SimDevice, which holds this) owns them: every release, pool free and use passes
// through it, with the knowledge to judge it. The interpreter's buffer states reach it through
// Device::note_lifetime_violation (released twice, released but never allocated, used after
// release, still held when the program ended); the pool state is its own (a free of a chunk that
// is not allocated, a free into a destroyed pool, allocations never returned). The race detector
// sees only what the engine passes on as observer calls: not a second release, not a free the
// pool refused or one into a destroyed pool, not an op the interpreter skipped; and it is not
// there at all with --no-races. So it counts none of them.
//
// Counting: each violation once, by whoever of the two finds it. A leak is counted once per
// allocation instance (a BufferId allocated twice is two instances) never returned to a live pool
// by the end of the run: still held by the host (the interpreter reports it when the program ends,
// with its own message), or released and never freed, or freed into a destroyed pool (those two
// are found here, at finish()).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "allocsim/core/backend.h"
#include "allocsim/core/result.h"

namespace allocsim {

class LifetimeFindings {
 public:
  /// Leak records kept (counts are complete): a program that leaks in a loop would otherwise fill
  /// every record slot and hide the other findings.
  static constexpr std::size_t kMaxLeakRecords = 3;

  explicit LifetimeFindings(std::size_t max_records) : max_records_(max_records) {}

  // ---- allocation instances, for leaks: an instance is known by its chunk while it holds it
  void allocated(const BufferInfo& buf);
  void released(const Chunk& chunk, TimeNs t);
  /// The chunk went back to a live pool: its allocation is not a leak.
  void returned(const Chunk& chunk);

  /// Counts `f` (a lifetime kind) and keeps its record while there is room.
  void report(Finding f);
  /// The same for a leak of the allocation holding `chunk`, which finish() then does not count again.
  void report_leak(Finding f, const Chunk& chunk);

  /// At the end of the run: counts every instance not returned to a live pool and not yet reported
  /// as a leak, in allocation order; `record(buf, release_time)` makes the Finding of one.
  template <class MakeRecord>
  void finish(MakeRecord&& record) {
    for (std::size_t i = 0; outstanding_ != 0 && i < instances_.size(); ++i) {
      Instance& in = instances_[i];
      if (in.returned) continue;
      in.returned = true;  // counted now: never again
      --outstanding_;
      if (in.leak_reported) continue;
      ++counts_[std::size_t(FindingKind::Leak)];
      if (keep(FindingKind::Leak)) end_records_.push_back(record(in.buf, in.release_time));
    }
    by_chunk_.clear();
  }

  std::uint64_t count(FindingKind k) const { return counts_[std::size_t(k)]; }
  /// Records, each list in detection order: those found during the run, and finish()'s leaks.
  const std::vector<Finding>& records() const { return records_; }
  const std::vector<Finding>& end_records() const { return end_records_; }

 private:
  struct Instance {
    BufferInfo buf;
    TimeNs release_time = -1;  // -1: not released by the host
    bool returned = false;     // freed into a live pool (or counted as a leak at finish())
    bool leak_reported = false;
  };
  bool keep(FindingKind k);  // room for one more record of kind k (and takes it)
  // (pool, addr) as one key, as MemoryAccounting keys its allocations
  static std::uint64_t key(const Chunk& c) { return (std::uint64_t(c.pool) << 60) ^ c.addr; }
  Instance* holding(const Chunk& chunk);  // the instance holding `chunk` now, if any

  std::size_t max_records_;
  std::array<std::uint64_t, kFindingKinds> counts_{};
  std::vector<Finding> records_, end_records_;
  std::size_t leak_records_ = 0;
  std::vector<Instance> instances_;                           // in allocation order
  std::unordered_map<std::uint64_t, std::uint32_t> by_chunk_;  // key(chunk) -> instance, while held
  std::uint64_t outstanding_ = 0;  // instances not returned: finish() skips its scan when none
};

}  // namespace allocsim
