// The race detector's state (private to sim/src/race): agents' clocks, sync objects, allocation
// instances, op spans and raw findings. race_detector.cpp drives it from the observer calls;
// finding_records.cpp turns raw findings into Finding records at finish().
#pragma once
#include <cstddef>
#include <array>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include "allocsim/race/race_detector.h"
#include "op_spans.h"
#include "pool_lock.h"
#include "shadow_memory.h"
#include "sync_objects.h"
#include "vector_clock.h"

namespace allocsim::race {

/// A write an allocation made to its own bytes (for the manifest check): kept per allocation, not
/// per shadow cell, so any number of later writers by other allocations cannot evict it.
struct OwnWrite {
  Addr begin = 0, end = 0;
  AccessRec write;  // the latest write of this allocation to [begin, end)
};

/// A pair of allocation instances already counted (latent or manifest), kept on one side's AllocRec
/// (the owner): a racy run counts one pair per racing allocation pair, and a global hash map of them
/// (350 k pairs in bench_engine's 1 M-op run) cost a cache miss per racing access.
struct PairRef {
  enum Kind : std::uint8_t { Latent, Manifest };
  std::int32_t other = -1;
  std::int32_t record = -1;  // index into raw findings, -1: not kept
  Kind kind = Latent;
};

/// One allocation instance (a BufferId may be allocated several times in one run): what findings
/// and the pool-free path need. The fields every access reads are in AllocHot.
///
/// Latent pairs with one of the 256 instances allocated just before the owner are one bit each
/// (near_latent): racing allocations are usually close in allocation order (a racy conv-autotune
/// run: 13.5 k pair lookups, all at distances under 256), and a hash map of them spent more time
/// growing than answering. Other pairs (manifest, farther latent) are in `pairs`, then the detector's
/// spilled_pairs map; so are the raw-finding indices of near pairs that have a record
/// (near_recorded says whether any has).
///
/// Both records are trivially destructible (inline arrays, the rare overflow kept in DetectorState
/// maps): a run's end then frees their blocks without touching every record again.
struct AllocRec {
  // one inline pair keeps the record at 128 bytes (two made it 136, and bench_engine's 1 M-op run,
  // which touches a record per allocation, 5 % slower); more pairs of one owner go to spilled_pairs
  static constexpr std::size_t kMaxInlinePairs = 1;
  static constexpr std::int32_t kNearWindow = 256;   // distances in allocation order held as bits
  std::array<std::uint64_t, kNearWindow / 64> near_latent{};  // bit d-1: latent pair (owner, owner - d) counted
  std::array<PairRef, kMaxInlinePairs> pairs{};               // other counted pairs this instance owns
  std::uint8_t n_pairs = 0;
  bool near_recorded = false;
  BufferId buffer = -1;
  Chunk chunk;
  std::uint64_t requested = 0;
  StreamId stream = kNoStream;
  AgentId free_agent = -1;
  TimeNs alloc_time = 0, release_time = -1, free_time = -1;
  bool freed = false;
};

/// The part of an allocation instance that every access reads, kept apart from AllocRec (same
/// index) and small: the first load of a 240-byte AllocRec was the hottest instruction of on_access.
struct AllocHot {
  static constexpr std::size_t kMaxOwnWrites = 16;  // distinct ranges; more are merged into a hull
  std::int64_t enqueue_mark = -1;    // highest op_seq enqueued before this allocation
  ShadowMemory::Hint hint;           // shadow cell starting at chunk.addr (lookup hint)
  std::int32_t prev_of_buffer = -1;  // the previous instance of the same BufferId
  bool released = false;
  std::uint8_t own_count = 0;  // own write ranges: the first here, the rest in more_own_writes
  OwnWrite own_write;          // usually the only one: whole-buffer writes
};

static_assert(sizeof(AllocRec) <= 128, "AllocRec grew past two cache lines (see kMaxInlinePairs)");
static_assert(std::is_trivially_destructible_v<AllocRec> && std::is_trivially_destructible_v<AllocHot>,
              "allocation records are freed with their blocks, not one by one");

/// Append-only storage in fixed blocks of 2^Bits: growth never moves elements (unlike vector),
/// indexing is a shift and a mask (unlike deque's division), which the per-access path feels, and a
/// new block is raw memory: an element is constructed once, in place, when it is added (a block of
/// value-initialised elements that were then overwritten showed in the profile).
template <class T, unsigned Bits = 10>
class BlockVector {
 public:
  BlockVector() = default;
  BlockVector(const BlockVector&) = delete;
  BlockVector& operator=(const BlockVector&) = delete;
  ~BlockVector() {
    if constexpr (!std::is_trivially_destructible_v<T>)
      for (std::size_t i = 0; i < size_; ++i) (*this)[i].~T();
  }
  T& operator[](std::size_t i) { return slots(i >> Bits)[i & kMask]; }
  const T& operator[](std::size_t i) const { return const_cast<BlockVector*>(this)->slots(i >> Bits)[i & kMask]; }
  std::size_t size() const { return size_; }
  /// Appends a default-initialised element and returns it.
  T& emplace_back() {
    if ((size_ >> Bits) == blocks_.size()) blocks_.push_back(std::unique_ptr<Block>(new Block));  // not zeroed
    // default-initialised: the members' initialisers run, without zeroing the whole record first
    T* p = ::new (static_cast<void*>(&slots(size_ >> Bits)[size_ & kMask])) T;
    ++size_;
    // the next element's lines, for writing: records are added one per allocation with much other
    // work in between, too sparse for the hardware prefetcher, and the first touch of each new line
    // was the hottest instruction of on_alloc
    if ((size_ & kMask) != 0)
      for (std::size_t off = 0; off < sizeof(T); off += 64)
        __builtin_prefetch(reinterpret_cast<const char*>(p + 1) + off, 1);
    return *p;
  }

 private:
  static constexpr std::size_t kMask = (std::size_t(1) << Bits) - 1;
  struct Block {
    alignas(T) std::byte bytes[sizeof(T) << Bits];
  };
  T* slots(std::size_t block) { return std::launder(reinterpret_cast<T*>(blocks_[block]->bytes)); }
  std::vector<std::unique_ptr<Block>> blocks_;
  std::size_t size_ = 0;
};

struct RawFinding {
  FindingKind kind = FindingKind::Latent;  // Latent or Manifest
  AddrRange range;
  std::int32_t alloc_a = -1, alloc_b = -1;  // allocation instances (a = first side)
  AccessRec a, b;                           // accesses
  AccessRec victim_write;                   // manifest: the victim's own write that was clobbered
};

struct DetectorState {
  RaceOptions options;
  std::vector<VectorClock> clocks;  // per agent
  SyncObjects sync;
  ShadowMemory shadow;
  PoolLock pool_lock;

  BlockVector<AllocRec> allocs;         // instances, in allocation order
  BlockVector<AllocHot> hot;            // the same instances' per-access fields
  std::vector<std::int32_t> latest_of;  // BufferId -> its latest instance (-1: none)
  std::vector<std::string> stream_names;                     // by StreamId
  OpSpans spans;
  std::uint64_t last_pair = ~std::uint64_t(0);  // latent pair seen last (skips the pair lookup)
  std::int32_t last_pair_record = -1;
  std::vector<bool> pool_destroyed;

  std::int64_t max_enqueued = -1;        // highest EnqueuedOp id released (by the host or a callback)
  std::vector<std::int64_t> current_op;  // per agent: EnqueuedOp id it last acquired
  bool ids_are_op_seqs = true;           // turns false if an access's op_seq != its EnqueuedOp id

  // pairs of an owner past AllocRec::kMaxInlinePairs: (owner, other, kind) -> raw index or -1
  boost::unordered_flat_map<std::uint64_t, std::int32_t> spilled_pairs;
  // own write ranges of an instance past its first (AllocHot::own_count > 1), oldest first
  boost::unordered_flat_map<std::int32_t, std::vector<OwnWrite>> more_own_writes;
  std::uint64_t latent = 0, manifest = 0;
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
  /// Pair (owner, other, kind): whether it was just added (not counted yet) and its record slot:
  /// the raw-finding index the caller sets or reads, or null where the pair has no record (a new
  /// pair gets a slot only while `with_record`).
  std::pair<std::int32_t*, bool> find_or_add_pair(std::int32_t owner, std::int32_t other, PairRef::Kind kind,
                                                  bool with_record) {
    AllocRec& ar = allocs[std::size_t(owner)];
    const std::uint64_t key = (std::uint64_t(std::uint32_t(owner)) << 32 | std::uint32_t(other)) ^ (std::uint64_t(kind) << 63);
    const std::int32_t d = owner - other;
    if (kind == PairRef::Latent && d > 0 && d <= AllocRec::kNearWindow) [[likely]] {
      std::uint64_t& word = ar.near_latent[std::size_t(d - 1) >> 6];
      const std::uint64_t bit = std::uint64_t(1) << ((d - 1) & 63);
      if (word & bit) {
        if (!ar.near_recorded) return {nullptr, false};
        auto it = spilled_pairs.find(key);
        return {it == spilled_pairs.end() ? nullptr : &it->second, false};
      }
      word |= bit;
      if (!with_record) return {nullptr, true};
      ar.near_recorded = true;
      return {&spilled_pairs.try_emplace(key, -1).first->second, true};
    }
    for (std::size_t i = 0; i < ar.n_pairs; ++i)
      if (ar.pairs[i].other == other && ar.pairs[i].kind == kind) return {&ar.pairs[i].record, false};
    if (ar.n_pairs < AllocRec::kMaxInlinePairs) {
      PairRef& p = ar.pairs[ar.n_pairs++];
      p = {other, -1, kind};
      return {&p.record, true};
    }
    auto [it, inserted] = spilled_pairs.try_emplace(key, -1);
    return {&it->second, inserted};
  }
  /// Calls f(own write) for instance `inst`'s own write ranges, oldest first, until f returns true.
  template <class F>
  void for_own_writes(std::int32_t inst, F&& f) {
    AllocHot& h = hot[std::size_t(inst)];
    if (h.own_count == 0 || f(h.own_write) || h.own_count == 1) return;
    for (OwnWrite& ow : more_own_writes[inst])
      if (f(ow)) return;
  }
  /// `e` happens-before everything agent `a` does from now on.
  bool ordered_before(const AccessRec& e, AgentId a) { return e.clock <= clock_of(a).get(e.agent); }

  std::string agent_name(AgentId a) const;
  std::vector<Finding> records(std::string_view policy) const;
};

}  // namespace allocsim::race
