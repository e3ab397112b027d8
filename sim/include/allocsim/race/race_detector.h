// The race detector (issue 4; docs/design.md section 3): a pure Observer that finds
//  - latent races: two accesses to overlapping bytes by DIFFERENT allocations that happens-before
//    does not order (write-write, write-read, read-write). Timing-independent: a bug even when this
//    run's timing hid it. Happens-before = vector clocks over the host thread, the callback thread
//    and every stream, built from the observer's release/acquire sync calls, plus the pool lock:
//    a pool free publishes the freeing agent's clock on the freed bytes, and an allocation that
//    overlaps them acquires it into the allocating agent.
//  - manifest corruption: in this run's timeline (reads at op start, writes at op end) an allocation
//    read bytes that another allocation wrote after its own last write of them.
// Lifetime bugs (double free, leak, ...) are not its business: the engine, which sees more of them,
// counts them (sim/src/engine/lifetime_findings.h).
//
// Counting (deterministic): a latent race is counted once per unordered pair of allocation
// instances, however many access pairs or byte ranges race; its record's range is the hull of every
// racing range of the pair seen. A manifest corruption is counted once per (victim, clobberer) pair.
// Records keep detection order (the first `max_findings`).
//
// Engine conventions it relies on (observer.h): accesses arrive in nondecreasing time order;
// EnqueuedOp and CallbackHandoff sync objects are acquired once after their release (they are then
// dropped, keeping memory bounded); an EnqueuedOp's id is the op's op_seq (used to tell apart two
// allocations of one BufferId; if the ids turn out not to be op_seqs the detector notices and falls
// back to the latest allocation of the buffer).
//
// Allocations are instances: a BufferId allocated twice is two allocations (an access belongs to the
// latest instance allocated before its op was enqueued).
//
// Cost: per access a walk over the shadow cells of the range from a per-allocation hint (usually
// one cell), epoch compares, no heap allocation in the common case; per enqueued op a 24-byte
// record instead of a clock copy (sync_objects.h); per allocation two records and, unless the
// allocating agent is already ordered after every pool free, a pool-lock query. docs/races.md
// ("How it is kept") has the structures; bench/bench_race measures the simulate() on/off ratio on
// the built-in scenarios, a sweep and a worst case, and the detector's own calls/s.
//
// What races.latent counts, precisely (docs/races.md): the number of distinct unordered pairs of
// allocation instances with at least one racing access pair the detector saw. Per byte range it
// compares a new access with the last write, the reads since it (up to 8) and the "racers": up to
// 4 overwritten writes that were not ordered before the write that overwrote them (of any
// allocation) and that no later write is ordered after yet. It never reports an ordered pair. It misses a pair (A, B)
// when A's access was overwritten in happens-before order before B arrived (B's pair with the
// overwriter is counted instead), when more than 4 unordered writers pile up on the same bytes, or
// when A's read left a full read set. In a chain of allocations reusing the same bytes with
// unordered streams (the seed hazard repeated), every allocation that races is in a counted pair.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "allocsim/core/observer.h"
#include "allocsim/core/result.h"
#include "allocsim/race/call_queue.h"

namespace allocsim {

struct RaceOptions {
  std::size_t max_findings = 20;  // records kept (counts are always complete)
  bool to_stderr = false;         // print each finding in a readable two-line form
};

/// The detector's part of a run's result (simulate() writes it into the RunResult).
struct RaceReport {
  std::uint64_t latent = 0, manifest = 0;
  std::vector<Finding> records;  // latent and manifest, detection order, at most max_findings
};

/// Latent races (happens-before, vector clocks over host, callback thread, streams) and manifest
/// corruption (timeline shadow memory) from the Observer stream of one run.
///
/// The calls are queued (call_queue.h) and handled a batch at a time; they are defined here so that
/// a caller holding a RaceDetector (final) inlines them.
class RaceDetector final : public Observer {
 public:
  explicit RaceDetector(RaceOptions options = {});
  ~RaceDetector() override;
  RaceDetector(const RaceDetector&) = delete;
  RaceDetector& operator=(const RaceDetector&) = delete;

  /// The counts and records. `policy` names the policy in each record's action_between. Call once,
  /// after on_end.
  RaceReport finish(std::string_view policy = {});

  void on_stream_created(StreamId s, std::string_view name) override;
  void on_release_sync(AgentId a, std::uint64_t key) override {
    race::QueuedCall& c = next_call(race::QueuedCall::Release);
    c.agent = a;
    c.word = key;
    commit_call();
  }
  void on_acquire_sync(AgentId a, std::uint64_t key) override {
    race::QueuedCall& c = next_call(race::QueuedCall::Acquire);
    c.agent = a;
    c.word = key;
    commit_call();
  }
  void on_access(AgentId a, std::uint64_t op_seq, BufferId alloc, AddrRange range, bool write, TimeNs t) override {
    race::QueuedCall& c = next_call(write ? race::QueuedCall::Write : race::QueuedCall::Read);
    c.agent = a;
    c.word = op_seq;
    c.buffer = alloc;
    c.addr = range.begin;
    c.bytes = range.bytes;
    c.t = t;
    commit_call();
  }
  void on_alloc(AgentId a, const BufferInfo& buf, TimeNs t) override {
    race::QueuedCall& c = next_call(race::QueuedCall::Alloc);
    c.agent = a;
    c.buffer = buf.id;
    c.stream = buf.alloc_stream;
    c.pool = buf.chunk.pool;
    c.addr = buf.chunk.addr;
    c.bytes = buf.chunk.bytes;
    c.word = buf.requested_bytes;
    c.t = t;
    commit_call();
  }
  void on_host_release(const BufferInfo& buf, TimeNs t) override {
    race::QueuedCall& c = next_call(race::QueuedCall::HostRelease);
    c.buffer = buf.id;
    c.t = t;
    commit_call();
  }
  void on_pool_free(AgentId a, const Chunk& ch, BufferId buf, TimeNs t) override {
    race::QueuedCall& c = next_call(race::QueuedCall::PoolFree);
    c.agent = a;
    c.buffer = buf;
    c.pool = ch.pool;
    c.addr = ch.addr;
    c.bytes = ch.bytes;
    c.t = t;
    commit_call();
  }
  void on_pool_destroyed(PoolId p, TimeNs t) override {
    race::QueuedCall& c = next_call(race::QueuedCall::PoolDestroyed);
    c.pool = p;
    c.t = t;
    commit_call();
  }
  void on_device_op(const DeviceOpSpan& span) override {
    race::QueuedCall& c = next_call(race::QueuedCall::DeviceOp);
    c.op_kind = span.kind;
    c.word = span.op_seq;
    c.stream = span.stream;
    c.addr = Addr(reinterpret_cast<std::uintptr_t>(span.label.data()));  // labels outlive the run (observer.h)
    c.bytes = span.label.size();
    c.t = span.start;
    c.t_end = span.end;
    commit_call();
  }

  class Impl;

 private:
  race::QueuedCall& next_call(race::QueuedCall::Kind kind) {
    race::QueuedCall& c = queue_.next();
    c.kind = kind;
    return c;
  }
  void commit_call() {
    if (queue_.commit()) drain();
  }
  void drain();  // handles the queued calls, in order, and empties the queue

  race::CallQueue queue_;
  std::unique_ptr<Impl> impl_;
};

/// The readable two-line form of a finding (what to_stderr prints), without a trailing newline.
std::string format_finding(const Finding& f);

}  // namespace allocsim
