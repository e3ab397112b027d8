// Hand-built observer sequences whose answer is known (issue 4 acceptance): the seed's autotuner
// use-after-free, its fixes (stream wait, host sync), same-stream reuse, partial overlaps, lifetime bugs.
#include <algorithm>

#include <catch2/catch.hpp>

#include "allocsim/race/race_detector.h"
#include "synthetic_engine.h"

using namespace allocsim;
using allocsim::test::SyntheticEngine;

namespace {

constexpr StreamId kCompute = 0, kAutotune = 1;
constexpr BufferId kX = 0, kScratch = 1;

enum class Fix { None, StreamWait, HostSync };

// The seed: fill X on compute; long kernel; read X on compute; the host frees X right after
// enqueuing the read (immediate policy); autotune gets the same address and zeroes it.
// `zero_at` is when the memset runs on the autotune stream.
RunResult seed(TimeNs zero_at, Fix fix = Fix::None) {
  SyntheticEngine e;
  e.stream(kCompute, "compute");
  e.stream(kAutotune, "autotune");
  e.alloc(0, kX, kCompute, 0x1000, 4096);
  auto fill = e.enqueue(1), spin = e.enqueue(2), read = e.enqueue(3);
  e.op(fill, kCompute, 10, 20, {}, {{kX}}, "fill");
  e.op(spin, kCompute, 20, 1000, {}, {}, "spin");
  TimeNs host = 4;
  std::vector<std::uint64_t> records;
  if (fix == Fix::StreamWait) records.push_back(sync_key(SyncKind::Event, 7));
  if (fix == Fix::HostSync) records.push_back(sync_key(SyncKind::StreamDrain, kCompute));
  e.op(read, kCompute, 1000, 1100, {{kX}}, {}, "copy", {}, records);
  if (fix == Fix::HostSync) {
    host = 1100;
    e.acquire_sync(host, kHostAgent, sync_key(SyncKind::StreamDrain, kCompute));
  }
  e.release(host, kX);
  e.pool_free(host, kHostAgent, kX);
  e.alloc(host + 1, kScratch, kAutotune, 0x1000, 4096);
  std::vector<std::uint64_t> waits;
  if (fix == Fix::StreamWait) {
    auto wait = e.enqueue(host + 2);
    e.op(wait, kAutotune, 1100, 1100, {}, {}, "stream-wait", {sync_key(SyncKind::Event, 7)});
  }
  auto zero = e.enqueue(host + 3);
  e.op(zero, kAutotune, zero_at, zero_at + 10, {}, {{kScratch}}, "memset");
  RaceDetector d({100, false});
  e.play(d);
  RunResult r;
  r.policy = "immediate";
  d.finish(r);
  return r;
}

std::uint64_t count(const RunResult& r, const std::string& kind) {
  return std::uint64_t(std::count_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.kind == kind; }));
}

}  // namespace

TEST_CASE("seed: zeroing between fill and read is latent and manifest") {
  RunResult r = seed(30);
  CHECK(r.races_latent == 1);
  CHECK(r.races_manifest == 1);
  REQUIRE(count(r, "latent") == 1);
  const Finding& f = r.findings.front();
  CHECK(f.kind == "latent");
  CHECK(f.range.begin == 0x1000);
  CHECK(f.range.bytes == 4096);
  CHECK(f.first.alloc == kX);
  CHECK(f.first.alloc_stream == "compute");
  CHECK(f.first.op == "fill");
  CHECK(f.first.write);
  CHECK(f.second.alloc == kScratch);
  CHECK(f.second.stream == "autotune");
  CHECK(f.second.op == "memset");
  CHECK(f.second.start == 30);
  CHECK(f.second.end == 40);
  CHECK(f.action_between.find("pool free of buffer 0 by host at t=4 (policy immediate)") != std::string::npos);
  auto m = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& x) { return x.kind == "manifest"; });
  REQUIRE(m != r.findings.end());
  CHECK(m->first.alloc == kX);
  CHECK(m->first.op == "copy");
  CHECK(!m->first.write);
  CHECK(m->second.alloc == kScratch);
  CHECK(m->second.write);
  CHECK(!format_finding(*m).empty());
}

TEST_CASE("seed: zeroing after the read is latent only") {
  RunResult r = seed(2000);
  CHECK(r.races_latent == 1);
  CHECK(r.races_manifest == 0);
}

TEST_CASE("seed: zeroing before the fill is latent only (the fill overwrites it)") {
  RunResult r = seed(5);
  CHECK(r.races_latent == 1);
  CHECK(r.races_manifest == 0);
}

TEST_CASE("seed with a stream wait on compute's event is race-free") {
  RunResult r = seed(1200, Fix::StreamWait);
  CHECK(r.races_latent == 0);
  CHECK(r.races_manifest == 0);
}

TEST_CASE("seed with a host sync before the free is race-free") {
  RunResult r = seed(1200, Fix::HostSync);
  CHECK(r.races_latent == 0);
  CHECK(r.races_manifest == 0);
}

TEST_CASE("same-stream reuse right after an immediate free is not a race") {
  SyntheticEngine e;
  e.stream(kCompute, "compute");
  e.alloc(0, kX, kCompute, 0, 4096);
  auto fill = e.enqueue(1), read = e.enqueue(2);
  e.op(fill, kCompute, 10, 20, {}, {{kX}});
  e.op(read, kCompute, 20, 500, {{kX}}, {});
  e.release(3, kX);
  e.pool_free(3, kHostAgent, kX);
  e.alloc(4, kScratch, kCompute, 0, 4096);
  auto zero = e.enqueue(5);
  e.op(zero, kCompute, 500, 510, {}, {{kScratch}}, "memset");
  RaceDetector d;
  e.play(d);
  RunResult r;
  d.finish(r);
  CHECK(r.races_latent == 0);
  CHECK(r.races_manifest == 0);
}

TEST_CASE("a chunk spanning parts of two freed chunks races with both") {
  SyntheticEngine e;
  e.stream(kCompute, "compute");
  e.stream(kAutotune, "autotune");
  e.alloc(0, 0, kCompute, 0, 4096);
  e.alloc(0, 1, kCompute, 4096, 4096);
  auto w0 = e.enqueue(1), w1 = e.enqueue(2), r01 = e.enqueue(3);
  e.op(w0, kCompute, 10, 20, {}, {{0}});
  e.op(w1, kCompute, 20, 30, {}, {{1}});
  e.op(r01, kCompute, 1000, 1100, {{0}, {1}}, {});  // after a long spin
  e.release(4, 0);
  e.pool_free(4, kHostAgent, 0);
  e.release(5, 1);
  e.pool_free(5, kHostAgent, 1);
  e.alloc(6, 2, kAutotune, 2048, 4096);  // [2048, 6144): the upper half of 0, the lower half of 1
  auto z = e.enqueue(7);
  e.op(z, kAutotune, 100, 110, {}, {{2}}, "memset");
  RaceDetector d({100, false});
  e.play(d);
  RunResult r;
  d.finish(r);
  CHECK(r.races_latent == 2);
  CHECK(r.races_manifest == 2);  // both were read at t=1000 after the zeroing at 110
  std::vector<AddrRange> ranges;
  for (const Finding& f : r.findings)
    if (f.kind == "latent") ranges.push_back(f.range);
  REQUIRE(ranges.size() == 2);
  std::sort(ranges.begin(), ranges.end(), [](AddrRange a, AddrRange b) { return a.begin < b.begin; });
  CHECK(ranges[0].begin == 2048);
  CHECK(ranges[0].bytes == 2048);
  CHECK(ranges[1].begin == 4096);
  CHECK(ranges[1].bytes == 2048);
}

TEST_CASE("one allocation racing with many freed ones counts each pair once, near and far") {
  // kOld buffers written on compute (still running when the host frees them), then one chunk over
  // all of them zeroed on the autotune stream: kOld latent pairs, all owned by the new allocation.
  // 40 stays within the owner's window of near pairs (256 allocations back); 300 also goes past it
  // (and past max_findings, so some counted pairs have a record and some do not).
  const int kOld = GENERATE(40, 300);
  constexpr std::size_t kRecords = 100;
  SyntheticEngine e;
  e.stream(kCompute, "compute");
  e.stream(kAutotune, "autotune");
  // host: each old buffer is allocated, written (enqueued), released and freed; then the new one.
  // The writes run on compute after the first zeroing, the second zeroing after them.
  const TimeNs host_end = TimeNs(kOld) * 4;
  for (int i = 0; i < kOld; ++i) {
    const TimeNs h = TimeNs(i) * 4;
    e.alloc(h, i, kCompute, Addr(i) * 256, 256);
    auto w = e.enqueue(h + 1);
    e.op(w, kCompute, 100000 + i, 100001 + i, {}, {{i}});
    e.release(h + 2, i);
    e.pool_free(h + 3, kHostAgent, i);
  }
  e.alloc(host_end, kOld, kAutotune, 0, Addr(kOld) * 256);
  auto z = e.enqueue(host_end + 1);
  e.op(z, kAutotune, host_end + 10, host_end + 20, {}, {{kOld}}, "memset");
  auto z2 = e.enqueue(host_end + 2);  // and again: every pair is found again, none counted twice
  e.op(z2, kAutotune, 200000, 200010, {}, {{kOld}}, "memset");
  RaceDetector d({kRecords, false});
  e.play(d);
  RunResult r;
  d.finish(r);
  CHECK(r.races_latent == std::uint64_t(kOld));
  // each record's range is exactly its old buffer's bytes (found twice, hull unchanged)
  std::size_t latent_records = 0;
  for (const Finding& f : r.findings) {
    if (f.kind != "latent") continue;
    ++latent_records;
    CHECK(f.range.bytes == 256);
    CHECK(f.range.begin % 256 == 0);
  }
  CHECK(latent_records == std::min<std::size_t>(std::size_t(kOld), kRecords));
}

TEST_CASE("a deferred free by the callback thread after compute drains orders the reuse") {
  SyntheticEngine e;
  e.stream(kCompute, "compute");
  e.stream(kAutotune, "autotune");
  e.alloc(0, kX, kCompute, 0, 4096);
  auto fill = e.enqueue(1), read = e.enqueue(2), marker = e.enqueue(3);
  e.op(fill, kCompute, 10, 20, {}, {{kX}});
  e.op(read, kCompute, 20, 500, {{kX}}, {});
  e.op(marker, kCompute, 500, 500, {}, {}, "callback-marker", {}, {sync_key(SyncKind::CallbackHandoff, 1)});
  e.release(4, kX);
  e.acquire_sync(511, kCallbackAgent, sync_key(SyncKind::CallbackHandoff, 1));
  e.pool_free(511, kCallbackAgent, kX);
  e.alloc(600, kScratch, kAutotune, 0, 4096);  // the host allocates after the chunk came back
  auto zero = e.enqueue(601);
  e.op(zero, kAutotune, 610, 620, {}, {{kScratch}}, "memset");
  RaceDetector d;
  e.play(d);
  RunResult r;
  d.finish(r);
  CHECK(r.races_latent == 0);
  CHECK(r.races_manifest == 0);
}

TEST_CASE("lifetime bugs: double free, unknown free, use after release, free after pool destroyed, leak") {
  SyntheticEngine e;
  e.stream(kCompute, "compute");
  e.alloc(0, 0, kCompute, 0, 256);
  e.alloc(0, 1, kCompute, 256, 256);
  e.alloc(0, 2, kCompute, 512, 256);
  e.alloc(0, 3, kCompute, 768, 256);  // never freed: a leak
  e.release(1, 0);
  auto late = e.enqueue(2);  // enqueued after buffer 0's release: a use after release
  e.op(late, kCompute, 10, 20, {{0}}, {});
  e.pool_free(3, kHostAgent, 0);
  e.pool_free(4, kHostAgent, 0);  // double free
  e.at(5, SyntheticEngine::kHost, [](Observer& o) { o.on_pool_free(kHostAgent, Chunk{kSharedPool, 9999, 256}, 42, 5); });
  e.release(6, 1);
  e.pool_free(6, kHostAgent, 1);
  e.release(7, 2);
  e.at(8, SyntheticEngine::kHost, [](Observer& o) { o.on_pool_destroyed(kSharedPool, 8); });
  e.pool_free(9, kCallbackAgent, 2);  // the deferred free's callback runs after shutdown
  RaceDetector d({100, false});
  e.play(d);
  RunResult r;
  d.finish(r);
  CHECK(r.double_frees == 1);
  CHECK(r.unknown_frees == 1);
  CHECK(r.use_after_release == 1);
  CHECK(r.callbacks_after_pool_destroyed == 1);
  CHECK(r.leaks == 2);  // buffer 3 never freed; buffer 2's free came too late to count
  CHECK(count(r, "leak") == 2);
  CHECK(r.races_latent == 0);
}

TEST_CASE("max_findings bounds the records, not the counts") {
  SyntheticEngine e;
  e.stream(kCompute, "compute");
  for (BufferId b = 0; b < 5; ++b) e.alloc(0, b, kCompute, Addr(b) * 256, 256);
  RaceDetector d({2, false});
  e.play(d);
  RunResult r;
  d.finish(r);
  CHECK(r.leaks == 5);
  CHECK(r.findings.size() == 2);
}
