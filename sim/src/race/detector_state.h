// The race detector's state (private to sim/src/race): agents' clocks, sync objects, allocation
// instances, op spans and raw findings. race_detector.cpp drives it from the observer calls;
// finding_records.cpp turns raw findings into Finding records at finish().
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include "allocsim/race/race_detector.h"
#include "shadow_memory.h"
#include "vector_clock.h"

namespace allocsim::race {

/// A write an allocation made to its own bytes (for the manifest check): kept per allocation, not
/// per shadow cell, so any number of later writers by other allocations cannot evict it.
struct OwnWrite {
  Addr begin = 0, end = 0;
  AccessRec write;  // the latest write of this allocation to [begin, end)
};

/// One allocation instance (a BufferId may be allocated several times in one run).
struct AllocRec {
  static constexpr std::size_t kMaxOwnWrites = 16;  // distinct ranges; more are merged into a hull
  boost::container::small_vector<OwnWrite, 1> own_writes;  // usually one: whole-buffer writes
  BufferId buffer = -1;
  Chunk chunk;
  std::uint64_t requested = 0;
  StreamId stream = kNoStream;
  TimeNs alloc_time = 0, release_time = -1, free_time = -1;
  AgentId free_agent = -1;
  std::int64_t enqueue_mark = -1;      // highest op_seq enqueued before this allocation
  std::int64_t release_mark = -1;      // highest op_seq enqueued before the host released it
  bool released = false, freed = false, uar_reported = false, double_free_reported = false;
  ShadowMemory::Iter hint;             // shadow cell starting at chunk.addr (lookup hint)
  std::int32_t prev_of_buffer = -1;    // the previous instance of the same BufferId
};

/// Append-only storage in fixed blocks of 2^Bits: growth never moves elements (unlike vector) and
/// indexing is a shift and a mask (unlike deque's division), which the per-access path feels.
template <class T, unsigned Bits = 10>
class BlockVector {
 public:
  T& operator[](std::size_t i) { return blocks_[i >> Bits][i & kMask]; }
  const T& operator[](std::size_t i) const { return blocks_[i >> Bits][i & kMask]; }
  std::size_t size() const { return size_; }
  void push_back(const T& v) {
    if ((size_ >> Bits) == blocks_.size()) blocks_.push_back(std::make_unique<T[]>(std::size_t(1) << Bits));
    (*this)[size_++] = v;
  }

 private:
  static constexpr std::size_t kMask = (std::size_t(1) << Bits) - 1;
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t size_ = 0;
};

struct SpanRec {
  TimeNs start = -1, end = -1;
  StreamId stream = kNoStream;
  std::int32_t label = -1;  // index into labels
};

struct RawFinding {
  std::string kind;
  AddrRange range;
  std::int32_t alloc_a = -1, alloc_b = -1;  // allocation instances (a = first side)
  AccessRec a, b;                           // accesses (invalid: none)
  AccessRec victim_write;                   // manifest: the victim's own write that was clobbered
  AgentId agent = -1;                       // lifetime findings: who did it
  TimeNs t = 0;
};

struct DetectorState {
  RaceOptions options;
  std::vector<VectorClock> clocks;  // per agent
  SyncObjects sync;
  ShadowMemory shadow;

  BlockVector<AllocRec> allocs;         // instances, in allocation order
  std::vector<std::int32_t> latest_of;  // BufferId -> its latest instance (-1: none)
  std::vector<std::string> stream_names;                     // by StreamId
  // op spans by op_seq, in fixed blocks (growing never moves them); a block is made on first use
  static constexpr unsigned kSpanBlockBits = 12;
  std::vector<std::unique_ptr<SpanRec[]>> span_blocks;
  const SpanRec* span(std::uint64_t op_seq) const {
    std::uint64_t b = op_seq >> kSpanBlockBits;
    if (b >= span_blocks.size() || !span_blocks[b]) return nullptr;
    return &span_blocks[b][op_seq & ((1u << kSpanBlockBits) - 1)];
  }
  std::uint64_t last_pair = ~std::uint64_t(0);  // latent pair seen last (skips the hash lookup)
  std::int32_t last_pair_record = -1;
  std::vector<std::string> labels;
  std::int32_t last_label = -1;  // on_device_op: index of the label seen last
  std::vector<bool> pool_destroyed;

  std::int64_t max_enqueued = -1;        // highest EnqueuedOp id released (by the host or a callback)
  std::vector<std::int64_t> current_op;  // per agent: EnqueuedOp id it last acquired
  bool ids_are_op_seqs = true;           // turns false if an access's op_seq != its EnqueuedOp id

  // Open addressing (no node allocation per pair): a racy run inserts one pair per racing
  // allocation pair, and std::unordered_map's malloc per insert showed in the profile.
  boost::unordered_flat_map<std::uint64_t, std::int32_t> latent_pairs, manifest_pairs;  // -> raw index or -1
  std::uint64_t latent = 0, manifest = 0, double_frees = 0, use_after_release = 0, unknown_frees = 0,
                callbacks_after_destroy = 0, leaks = 0;
  std::vector<RawFinding> raw;  // first max_findings, detection order

  [[gnu::always_inline]] VectorClock& clock_of(AgentId a) {
    if (std::size_t(a) < clocks.size()) [[likely]]
      return clocks[std::size_t(a)];
    return grow_clocks(a);
  }
  [[gnu::noinline, gnu::cold]] VectorClock& grow_clocks(AgentId a) {
    {
      std::size_t old = clocks.size();
      clocks.resize(std::size_t(a) + 1);
      current_op.resize(std::size_t(a) + 1, -1);
      for (std::size_t i = old; i < clocks.size(); ++i) clocks[i].set(AgentId(i), 1);
    }
    return clocks[std::size_t(a)];
  }
  /// `e` happens-before everything agent `a` does from now on.
  bool ordered_before(const AccessRec& e, AgentId a) { return e.clock <= clock_of(a).get(e.agent); }

  std::string agent_name(AgentId a) const;
  std::vector<Finding> records(const std::string& policy) const;
};

}  // namespace allocsim::race
