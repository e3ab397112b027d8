// The race detector's private structures (sim/src/race), each against a plain reference: vector
// clocks past their inline lanes, enqueued-op snapshots vs a full clock copy per sync object,
// interval cells (split, merge, hints) vs a per-byte array, packed op spans, block storage.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "race/detector_state.h"
#include "race/interval_map.h"
#include "race/op_spans.h"
#include "race/pool_lock.h"
#include "race/sync_objects.h"
#include "race/vector_clock.h"

using namespace allocsim;
using namespace allocsim::race;

TEST_CASE("vector clock: more agents than inline lanes, joins, equality, change count") {
  VectorClock a, b;
  for (AgentId i = 0; i < 12; ++i) a.set(i, Clock(i + 1));
  b.set(10, 50);
  b.set(3, 1);
  a.join(b);
  CHECK(a.get(10) == 50);
  CHECK(a.get(3) == 4);
  CHECK(a.get(11) == 12);
  CHECK(a.get(40) == 0);  // never set: reads as 0

  VectorClock c, d;
  c.set(9, 0);  // a spilled zero lane equals a missing one
  CHECK(c == d);
  d.set(9, 1);
  CHECK_FALSE(c == d);

  const std::uint32_t before = a.changes();
  a.tick(2);  // the owner's own step is not a change
  CHECK(a.changes() == before);
  a.join(b);  // nothing new
  CHECK(a.changes() == before);
  VectorClock e;
  e.set(1, 100);
  a.join(e);
  CHECK(a.changes() != before);
  CHECK(a.get(1) == 100);
}

// Reference: every sync object holds the full join of the clocks released to it.
TEST_CASE("sync objects: enqueued-op snapshots give exactly the released clocks (random programs)") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    const int agents = 3 + int(seed % 9);  // up to 11: past the inline lanes
    std::vector<VectorClock> real(static_cast<std::size_t>(agents)), ref(static_cast<std::size_t>(agents));
    for (int i = 0; i < agents; ++i) real[std::size_t(i)].set(i, 1), ref[std::size_t(i)].set(i, 1);
    SyncObjects sync;
    std::map<std::uint64_t, VectorClock> ref_objects;
    std::vector<std::uint64_t> pending_ops;  // released, not yet acquired (FIFO per "stream")
    std::uint64_t next_op = 0, next_event = 0;
    for (int step = 0; step < 3000; ++step) {
      const int what = int(rng() % 10);
      const AgentId a = AgentId(rng() % unsigned(agents));
      auto release = [&](std::uint64_t key) {
        sync.release(a, key, real[std::size_t(a)]);
        ref_objects[key].join(ref[std::size_t(a)]);
        real[std::size_t(a)].tick(a);
        ref[std::size_t(a)].set(a, ref[std::size_t(a)].get(a) + 1);
      };
      auto acquire = [&](std::uint64_t key, bool one_shot) {
        const bool found = sync.acquire(a, key, real[std::size_t(a)], one_shot);
        auto it = ref_objects.find(key);
        REQUIRE(found == (it != ref_objects.end()));
        if (it == ref_objects.end()) return;
        ref[std::size_t(a)].join(it->second);
        if (one_shot) ref_objects.erase(it);
      };
      if (what < 4) {  // enqueue an op (the host or the callback thread)
        std::uint64_t op = next_op++;
        release(sync_key(SyncKind::EnqueuedOp, op));
        pending_ops.push_back(op);
      } else if (what < 7 && !pending_ops.empty()) {
        // an op starts: the oldest (one stream's FIFO) or, in odd seeds, any (several streams)
        const std::size_t pick = seed % 2 ? rng() % pending_ops.size() : 0;
        std::uint64_t op = pending_ops[pick];
        pending_ops.erase(pending_ops.begin() + std::ptrdiff_t(pick));
        acquire(sync_key(SyncKind::EnqueuedOp, op), true);
      } else if (what == 7) {
        if (rng() % 2) {
          release(sync_key(SyncKind::Event, next_event++));
        } else {  // a callback hand-off: released once, acquired once (or never)
          const std::uint64_t h = sync_key(SyncKind::CallbackHandoff, next_event++);
          release(h);
          if (rng() % 4) acquire(h, true);
        }
      } else if (what == 8 && next_event > 0) {
        acquire(sync_key(SyncKind::Event, rng() % next_event), false);
      } else {
        const std::uint64_t unknown = sync_key(SyncKind::Event, 1'000'000 + rng() % 5);
        acquire(unknown, false);
      }
      for (int i = 0; i < agents; ++i) REQUIRE(real[std::size_t(i)] == ref[std::size_t(i)]);
    }
  }
}

namespace {
struct ValueCell {
  Addr end = 0;
  int value = 0;
};
struct ValueOps {
  int splits = 0;
  void split(ValueCell&, ValueCell&) { ++splits; }
  bool same(const ValueCell& a, const ValueCell& b) const { return a.value == b.value; }
  void erased(ValueCell&) {}
};
}  // namespace

TEST_CASE("interval map: visits tile the range exactly, assign and merges keep values, hints stay right") {
  constexpr Addr kSpace = 512;
  for (unsigned seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(seed);
    IntervalMap<ValueCell, ValueOps> map;
    std::vector<int> bytes(kSpace, 0);  // reference value per address
    std::vector<bool> visited(kSpace, false);  // bytes some cell covers
    std::map<Addr, IntervalMap<ValueCell, ValueOps>::Hint> hints;  // by range start, reused
    for (int step = 0; step < 4000; ++step) {
      Addr b = rng() % kSpace, e = rng() % kSpace;
      if (b > e) std::swap(b, e);
      if (b == e) continue;
      const bool assign = rng() % 2 == 0;
      const int v = int(rng() % 4);
      Addr expect = b;
      auto& hint = hints[b];
      bool expect_all = true;  // every byte a cell holds (a visited one) has value v
      for (Addr x = b; x < e; ++x) expect_all = expect_all && (!visited[x] || bytes[x] == v);
      REQUIRE(map.all_overlapping({b, e - b}, hint, [&](const ValueCell& c) { return c.value == v; }) == expect_all);
      for (Addr x = b; x < e; ++x) visited[x] = true;
      if (rng() % 3 == 0) {  // the range as one cell, in one splice
        hint.index = std::uint32_t(map.assign({b, e - b}, hint, [v](ValueCell& c) { c.value = v; }));
        for (Addr x = b; x < e; ++x) bytes[x] = v;
        std::size_t cells = 0;
        map.for_each({b, e - b}, hint, [&](ValueCell& cell, Addr cb, Addr ce) {
          ++cells;
          REQUIRE((cb == b && ce == e && cell.end == e && cell.value == v));
        });
        REQUIRE(cells == 1);
        continue;
      }
      map.for_each(
          {b, e - b}, hint,
          [&](ValueCell& c, Addr cb, Addr ce) {
            REQUIRE(cb == expect);  // contiguous, in order, inside the range
            REQUIRE(ce <= e);
            REQUIRE(ce == c.end);
            for (Addr x = cb; x < ce; ++x) REQUIRE(bytes[x] == c.value);  // one state per cell
            if (assign) c.value = v;
            expect = ce;
          },
          /*merge=*/rng() % 2 == 0);
      REQUIRE(expect == e);
      if (assign)
        for (Addr x = b; x < e; ++x) bytes[x] = v;
    }
    CHECK(map.cell_count() <= kSpace);
  }
}

TEST_CASE("interval map: merging equal neighbours bounds the cells of mixed-size reuse") {
  IntervalMap<ValueCell, ValueOps> map;
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    Addr b = rng() % 4096, len = 1 + rng() % 512;
    map.for_each({b, len}, [](ValueCell&, Addr, Addr) {});  // split at new boundaries
    map.for_each({0, 8192}, [](ValueCell& c, Addr, Addr) { c.value = 1; }, /*merge=*/true);  // all equal
    REQUIRE(map.cell_count() == 1);
  }
}

// Reference: every byte holds the join of the clocks of all frees that covered it.
TEST_CASE("pool lock: per-agent free epochs give exactly the per-byte join of free clocks (random programs)") {
  constexpr Addr kSpace = 256;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    const int agents = 2 + int(seed % 10);  // up to 11: past the inline lanes
    std::vector<VectorClock> clock(static_cast<std::size_t>(agents));
    for (int i = 0; i < agents; ++i) clock[std::size_t(i)].set(i, 1);
    std::vector<VectorClock> ref(kSpace);
    PoolLock lock;
    for (int step = 0; step < 3000; ++step) {
      const AgentId a = AgentId(rng() % unsigned(agents));
      VectorClock& vc = clock[std::size_t(a)];
      Addr b = rng() % kSpace, e = rng() % kSpace;
      if (b > e) std::swap(b, e);
      if (b == e) continue;
      switch (rng() % 4) {
        case 0: {  // another agent releases (then ticks, as every release does) and a acquires it
          const AgentId o = AgentId(rng() % unsigned(agents));
          if (o == a) break;
          vc.join(clock[std::size_t(o)]);
          clock[std::size_t(o)].tick(o);
          break;
        }
        case 1: {  // a frees [b, e)
          lock.release({b, e - b}, a, vc);
          for (Addr x = b; x < e; ++x) ref[x].join(vc);
          vc.tick(a);
          break;
        }
        default: {  // a allocates [b, e)
          VectorClock expect = vc;
          for (Addr x = b; x < e; ++x) expect.join(ref[x]);
          VectorClock got = vc;
          if (lock.ordered_after_all_frees(got)) REQUIRE(got == expect);  // the shortcut loses nothing
          else lock.acquire({b, e - b}, got);
          REQUIRE(got == expect);
          vc = got;
          break;
        }
      }
    }
  }
}

TEST_CASE("op spans: packed, overflow, labels by address") {
  OpSpans spans;
  static const std::string kernel = "kernel", kernel_copy = "kernel", memset = "memset";
  DeviceOpSpan s;
  s.op_seq = 5, s.stream = 2, s.label = kernel, s.start = 100, s.end = 250;
  spans.record(s);
  s.op_seq = 9000, s.stream = 0, s.label = memset, s.start = 7, s.end = 7 + (TimeNs(1) << 40);  // too long to pack
  spans.record(s);
  s.op_seq = 9001, s.stream = 70000, s.label = kernel_copy, s.start = 1, s.end = 2;  // stream too big to pack
  spans.record(s);
  auto a = spans.find(5);
  REQUIRE(a);
  CHECK(a->start == 100);
  CHECK(a->end == 250);
  CHECK(a->stream == 2);
  CHECK(a->label == "kernel");
  auto b = spans.find(9000);
  REQUIRE(b);
  CHECK(b->end - b->start == TimeNs(1) << 40);
  CHECK(b->label == "memset");
  auto c = spans.find(9001);
  REQUIRE(c);
  CHECK(c->stream == 70000);
  CHECK(c->label == "kernel");
  CHECK_FALSE(spans.find(6));
  CHECK_FALSE(spans.find(123456789));
}

TEST_CASE("block vector: stable addresses across blocks, every element destroyed once") {
  static int alive = 0;
  struct Counted {
    int v = 0;
    Counted() { ++alive; }
    ~Counted() { --alive; }
  };
  {
    BlockVector<Counted, 4> bv;  // 16 per block
    std::vector<Counted*> addrs;
    for (int i = 0; i < 100; ++i) {
      Counted& c = bv.emplace_back();
      c.v = i;
      addrs.push_back(&c);
    }
    CHECK(alive == 100);
    for (int i = 0; i < 100; ++i) {
      CHECK(&bv[std::size_t(i)] == addrs[std::size_t(i)]);
      CHECK(bv[std::size_t(i)].v == i);
    }
  }
  CHECK(alive == 0);
}
