// Hand-built observer sequences whose answer is known (issue 4 acceptance): the seed's autotuner
// use-after-free, its fixes (stream wait, host sync), same-stream reuse, partial overlaps.
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
RaceReport seed(TimeNs zero_at, Fix fix = Fix::None) {
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
  return d.finish("immediate");
}

std::uint64_t count(const RaceReport& r, FindingKind kind) {
  auto of_kind = [&](const Finding& f) { return f.kind == kind; };
  return std::uint64_t(std::count_if(r.records.begin(), r.records.end(), of_kind));
}

}  // namespace

TEST_CASE("seed: zeroing between fill and read is latent and manifest") {
  RaceReport r = seed(30);
  CHECK(r.latent == 1);
  CHECK(r.manifest == 1);
  REQUIRE(count(r, FindingKind::Latent) == 1);
  const Finding& f = r.records.front();
  CHECK(f.kind == FindingKind::Latent);
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
  auto m = std::find_if(r.records.begin(), r.records.end(), [](const Finding& x) { return x.kind == FindingKind::Manifest; });
  REQUIRE(m != r.records.end());
  CHECK(m->first.alloc == kX);
  CHECK(m->first.op == "copy");
  CHECK(!m->first.write);
  CHECK(m->second.alloc == kScratch);
  CHECK(m->second.write);
  CHECK(!format_finding(*m).empty());
}

TEST_CASE("seed: zeroing after the read is latent only") {
  RaceReport r = seed(2000);
  CHECK(r.latent == 1);
  CHECK(r.manifest == 0);
}

TEST_CASE("seed: zeroing before the fill is latent only (the fill overwrites it)") {
  RaceReport r = seed(5);
  CHECK(r.latent == 1);
  CHECK(r.manifest == 0);
}

TEST_CASE("seed with a stream wait on compute's event is race-free") {
  RaceReport r = seed(1200, Fix::StreamWait);
  CHECK(r.latent == 0);
  CHECK(r.manifest == 0);
}

TEST_CASE("seed with a host sync before the free is race-free") {
  RaceReport r = seed(1200, Fix::HostSync);
  CHECK(r.latent == 0);
  CHECK(r.manifest == 0);
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
  RaceReport r = d.finish();
  CHECK(r.latent == 0);
  CHECK(r.manifest == 0);
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
  RaceReport r = d.finish();
  CHECK(r.latent == 2);
  CHECK(r.manifest == 2);  // both were read at t=1000 after the zeroing at 110
  std::vector<AddrRange> ranges;
  for (const Finding& f : r.records)
    if (f.kind == FindingKind::Latent) ranges.push_back(f.range);
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
  RaceReport r = d.finish();
  CHECK(r.latent == std::uint64_t(kOld));
  // each record's range is exactly its old buffer's bytes (found twice, hull unchanged)
  std::size_t latent_records = 0;
  for (const Finding& f : r.records) {
    if (f.kind != FindingKind::Latent) continue;
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
  RaceReport r = d.finish();
  CHECK(r.latent == 0);
  CHECK(r.manifest == 0);
}

TEST_CASE("max_findings bounds the records, not the counts") {
  SyntheticEngine e;
  e.stream(kCompute, "compute");
  e.stream(kAutotune, "autotune");
  // three copies of the seed hazard on distinct bytes (see seed()): three latent pairs
  for (BufferId i = 0; i < 3; ++i) {
    const BufferId x = 2 * i, scratch = 2 * i + 1;
    const Addr at = Addr(i) * 0x1000;
    const TimeNs h = 10 * i;
    e.alloc(h, x, kCompute, at, 4096);
    auto fill = e.enqueue(h + 1);
    e.op(fill, kCompute, 100 + h, 200 + h, {}, {{x}}, "fill");
    e.release(h + 2, x);
    e.pool_free(h + 2, kHostAgent, x);
    e.alloc(h + 3, scratch, kAutotune, at, 4096);
    auto zero = e.enqueue(h + 4);
    e.op(zero, kAutotune, h + 5, h + 6, {}, {{scratch}}, "memset");
  }
  RaceDetector d({2, false});
  e.play(d);
  RaceReport r = d.finish();
  CHECK(r.latent == 3);
  CHECK(r.records.size() == 2);
}
