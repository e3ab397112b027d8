// Property tests on random synthetic programs (streams, kernels touching random byte ranges, event
// records and waits, host syncs, frees under three policies, re-allocation from a small first-fit
// arena so chunks overlap old ones partially). Timing follows happens-before: an op starts after its
// enqueue, its stream's previous op and the events it waits on.
//  - manifest ⊆ latent: every manifest corruption has a latent race on the same allocation pair and
//    overlapping bytes (programs here never use a buffer after releasing it);
//  - frees that wait for the buffer's streams (host sync) or run after them (deferred callback) never
//    race; the immediate free races somewhere across the seeds;
//  - the same program gives the same findings.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "allocsim/core/chooser.h"
#include "allocsim/race/race_detector.h"
#include "synthetic_engine.h"

using namespace allocsim;
using allocsim::test::SyntheticEngine;

namespace {

enum class FreeKind { Immediate, HostSync, DeferredCallback, Mixed };

struct Live {
  BufferId id;
  unsigned first_unit, units;
  std::uint64_t used_streams = 0;
};

constexpr unsigned kUnits = 32;  // arena of 32 x 256 B
constexpr std::uint64_t kUnit = 256;

SyntheticEngine random_program(std::uint64_t seed, FreeKind policy) {
  auto ch = make_seeded_chooser(seed);
  auto pick = [&](std::uint64_t n) { return ch->pick(n); };
  SyntheticEngine e;
  const int streams = 2 + int(pick(3));
  for (int s = 0; s < streams; ++s) e.stream(s, s == 0 ? "compute" : "s" + std::to_string(s));
  std::vector<TimeNs> ready(std::size_t(streams), 0);
  std::vector<bool> used(kUnits, false);
  std::vector<std::pair<TimeNs, std::pair<unsigned, unsigned>>> pending;  // callback frees: time, units
  std::vector<Live> live;
  std::vector<std::pair<std::uint64_t, TimeNs>> events;  // key, completion time
  TimeNs h = 0;
  BufferId next_buf = 0;
  std::uint64_t next_key = 1;


  const int steps = 40 + int(pick(80));
  for (int step = 0; step < steps; ++step) {
    switch (pick(8)) {
      case 0:
      case 1: {  // allocate first-fit after the callback frees that are done by now
        for (auto it = pending.begin(); it != pending.end();)
          if (it->first <= h) {
            for (unsigned u = 0; u < it->second.second; ++u) used[it->second.first + u] = false;
            it = pending.erase(it);
          } else {
            ++it;
          }
        unsigned units = 1 + unsigned(pick(6));
        for (unsigned b = 0; b + units <= kUnits; ++b) {
          if (std::any_of(used.begin() + b, used.begin() + b + units, [](bool x) { return x; })) continue;
          for (unsigned u = 0; u < units; ++u) used[b + u] = true;
          h += 1;
          e.alloc(h, next_buf, int(pick(std::uint64_t(streams))), b * kUnit, units * kUnit);
          live.push_back({next_buf++, b, units});
          break;
        }
        break;
      }
      case 2:
      case 3: {  // a kernel touching one or two live buffers, wholly or partly
        if (live.empty()) break;
        int s = int(pick(std::uint64_t(streams)));
        std::vector<SyntheticEngine::Access> r, w;
        for (int k = 0, n = 1 + int(pick(2)); k < n; ++k) {
          Live& b = live[pick(live.size())];
          b.used_streams |= 1u << s;
          std::uint64_t off = pick(2) ? 0 : pick(b.units) * kUnit;
          std::uint64_t bytes = b.units * kUnit - off;
          (pick(2) ? w : r).push_back({b.id, off, bytes});
        }
        e.host_op(h, ready, s, 0, 1 + TimeNs(pick(200)), r, w, {}, {}, "kernel");
        break;
      }
      case 4: {  // record an event
        int s = int(pick(std::uint64_t(streams)));
        std::uint64_t key = sync_key(SyncKind::Event, next_key++);
        TimeNs end = e.host_op(h, ready, s, 0, 0, {}, {}, {}, {key}, "event-record");
        events.push_back({key, end});
        break;
      }
      case 5: {  // a stream waits on an event
        if (events.empty()) break;
        auto [key, done] = events[pick(events.size())];
        e.host_op(h, ready, int(pick(std::uint64_t(streams))), done, 0, {}, {}, {key}, {}, "stream-wait");
        break;
      }
      case 6: {  // release a buffer; the policy frees it
        if (live.empty()) break;
        std::size_t i = pick(live.size());
        Live b = live[i];
        live.erase(live.begin() + std::ptrdiff_t(i));
        h += 1;
        e.release(h, b.id);
        FreeKind k = policy == FreeKind::Mixed ? FreeKind(pick(3)) : policy;
        if (k == FreeKind::Immediate) {
          e.pool_free(h, kHostAgent, b.id);
          for (unsigned u = 0; u < b.units; ++u) used[b.first_unit + u] = false;
        } else if (k == FreeKind::HostSync) {
          for (int s = 0; s < streams; ++s)
            if (b.used_streams >> s & 1) e.host_sync_stream(h, ready, s,
                                                            sync_key(SyncKind::StreamDrain, next_key++));
          e.pool_free(h, kHostAgent, b.id);
          for (unsigned u = 0; u < b.units; ++u) used[b.first_unit + u] = false;
        } else {  // a marker on each stream that used it hands off to the callback thread
          TimeNs when = h;
          std::vector<std::uint64_t> keys;
          for (int s = 0; s < streams; ++s)
            if (b.used_streams >> s & 1) {
              keys.push_back(sync_key(SyncKind::CallbackHandoff, next_key++));
              when = std::max(when, e.host_op(h, ready, s, 0, 0, {}, {}, {}, {keys.back()}, "callback-marker"));
            }
          when += 1 + TimeNs(pick(50));
          for (std::uint64_t key : keys) e.acquire_sync(when, kCallbackAgent, key);
          e.pool_free(when, kCallbackAgent, b.id);
          pending.push_back({when, {b.first_unit, b.units}});
        }
        break;
      }
      default:  // the host computes, or synchronizes a stream
        if (pick(2)) h += TimeNs(pick(300));
        else e.host_sync_stream(h, ready, int(pick(std::uint64_t(streams))),
                                sync_key(SyncKind::StreamDrain, next_key++));
    }
  }
  return e;
}

RaceReport detect(SyntheticEngine& e) {
  RaceDetector d({1u << 20, false});
  e.play(d);
  return d.finish("synthetic");
}

}  // namespace

TEST_CASE("random programs: every manifest corruption is also a latent race on the same bytes") {
  std::uint64_t manifests = 0, latents = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    SyntheticEngine e = random_program(seed, seed % 2 ? FreeKind::Immediate : FreeKind::Mixed);
    RaceReport r = detect(e);
    manifests += r.manifest;
    latents += r.latent;
    CHECK(r.manifest <= r.latent);
    for (const Finding& m : r.records) {
      if (m.kind != FindingKind::Manifest) continue;
      bool covered = std::any_of(r.records.begin(), r.records.end(), [&](const Finding& l) {
        return l.kind == FindingKind::Latent &&
               std::set{l.first.alloc, l.second.alloc} == std::set{m.first.alloc, m.second.alloc} &&
               l.range.overlaps(m.range);
      });
      INFO("seed " << seed << ": " << format_finding(m));
      CHECK(covered);
    }
  }
  INFO("latent " << latents << ", manifest " << manifests);
  CHECK(manifests > 0);  // the property is not vacuous
  CHECK(latents > manifests);
}

TEST_CASE("random programs: frees ordered after the buffer's streams never race") {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    for (FreeKind k : {FreeKind::HostSync, FreeKind::DeferredCallback}) {
      SyntheticEngine e = random_program(seed, k);
      RaceReport r = detect(e);
      INFO("seed " << seed << " policy " << int(k));
      CHECK(r.latent == 0);
      CHECK(r.manifest == 0);
    }
  }
}

TEST_CASE("random programs: detection is deterministic") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SyntheticEngine a = random_program(seed, FreeKind::Mixed), b = random_program(seed, FreeKind::Mixed);
    RaceReport ra = detect(a), rb = detect(b);
    REQUIRE(ra.records.size() == rb.records.size());
    CHECK(ra.latent == rb.latent);
    for (std::size_t i = 0; i < ra.records.size(); ++i)
      CHECK(format_finding(ra.records[i]) == format_finding(rb.records[i]));
  }
}
