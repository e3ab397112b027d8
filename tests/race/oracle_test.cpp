// The race detector against a brute-force happens-before oracle (trace_oracle.h) on hundreds of
// small generated programs (issue 15): the host, the callback thread and 2-4 streams; kernels
// reading and writing byte ranges of allocations that reuse each other's bytes (a tiny pool);
// event records, stream waits, host event and stream syncs; frees that are immediate, that wait for
// some of the streams that used the buffer, or that run on the callback thread after markers on
// some of them; a compute semaphore released from callbacks; host reads and writes.
//
// Each program is played once into a recorder; the recorded calls are replayed into the detector
// (max_findings large: every latent pair gets a record) and handed to the oracle. Compared on the
// unit the detector reports, distinct pairs of allocation instances:
//  - no false pair: every latent record names a pair the oracle finds unordered, the two accesses
//    it shows are a racing access pair of the oracle's (allocation, agent, read/write, time), its
//    range lies in the hull of that pair's racing overlaps, and races_latent = the records;
//  - no missed pair: every pair the oracle requires (trace_oracle.h: not hidden by one of the
//    misses docs/races.md documents) is reported;
//  - the two oracles (every ordering, depth-first reachability) agree on every access pair.
// On a disagreement the trace is shrunk (calls dropped one at a time while it still disagrees)
// and printed with its cross-agent edges.
#include <catch2/catch.hpp>
#include <limits>
#include <random>
#include <sstream>

#include "allocsim/race/race_detector.h"
#include "synthetic_engine.h"
#include "trace_oracle.h"

using namespace allocsim;
using allocsim::test::AllocPair;
using allocsim::test::OracleResult;
using allocsim::test::SyntheticEngine;
using allocsim::test::TraceCall;
using allocsim::test::TraceOracle;
using allocsim::test::TraceRecorder;

namespace {

struct Limits {
  int max_accesses = 12;
  int max_reads = 8;   // the detector's read set holds 8: no read falls out
  int max_allocs = 5;  // the racer list then never exceeds its 4 (trace_oracle.h)
  int max_steps = 40;
};

constexpr unsigned kUnits = 8;  // a pool of 8 x 8 B: allocations reuse each other's bytes
constexpr std::uint64_t kUnit = 8;
constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

struct Live {
  BufferId id;
  unsigned first, units;
  std::uint32_t streams = 0;  // streams that used it
};

// A small random program on the synthetic engine. Timing follows happens-before (an op starts
// after its enqueue, its stream's previous op and its waited events; the host blocks on syncs and
// the semaphore; the callback thread runs hand-offs in order), so the trace is one execution.
SyntheticEngine small_program(std::uint64_t seed, const Limits& lim) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t n) { return n ? rng() % n : 0; };
  SyntheticEngine e;
  const int streams = 2 + int(pick(3));
  for (int s = 0; s < streams; ++s) e.stream(s, "s" + std::to_string(s));
  std::vector<TimeNs> ready(std::size_t(streams), 0);
  std::vector<TimeNs> unit_free(kUnits, 0);  // when each unit is back in the pool (kNever: held)
  std::vector<bool> ever_used(kUnits, false);
  std::vector<Live> live;
  std::vector<std::pair<std::uint64_t, TimeNs>> events;  // key, completion
  const int sem_capacity = 1 + int(pick(2));
  std::vector<TimeNs> sem_units(std::size_t(sem_capacity), 0);  // when each unit is given back
  TimeNs h = 0, cb = 0;                                         // host and callback thread clocks
  BufferId next_buf = 0;
  std::uint64_t next_key = 1;
  int accesses = 0, reads = 0, allocs = 0;

  // markers on `mask`'s streams hand off to the callback thread, which then runs `then` at its time
  auto callback_after = [&](std::uint32_t mask, const std::function<void(TimeNs)>& then) {
    TimeNs when = std::max(h, cb);
    std::vector<std::uint64_t> keys;
    for (int s = 0; s < streams; ++s)
      if (mask >> s & 1) {
        keys.push_back(sync_key(SyncKind::CallbackHandoff, next_key++));
        when = std::max(when, e.host_op(h, ready, s, 0, 0, {}, {}, {}, {keys.back()}, "callback-marker"));
      }
    when += 1 + TimeNs(pick(40));
    cb = when;
    for (std::uint64_t k : keys) e.acquire_sync(when, kCallbackAgent, k);
    then(when);
  };
  auto some_streams = [&](std::uint32_t used) {  // a random subset of `used` (all of it a third of the time)
    return pick(3) == 0 ? used : used & std::uint32_t(pick(1u << streams));
  };
  auto range_in = [&](const Live& b) {  // whole buffer, or a random unit-aligned or odd part
    std::uint64_t size = b.units * kUnit;
    if (pick(2)) return SyntheticEngine::Access{b.id, 0, 0};
    std::uint64_t off = pick(size), bytes = 1 + pick(size - off);
    return SyntheticEngine::Access{b.id, off, bytes};
  };

  const int steps = 10 + int(pick(std::uint64_t(lim.max_steps - 9)));
  for (int step = 0; step < steps && accesses < lim.max_accesses; ++step) {
    switch (pick(17)) {
      case 0:
      case 1:
      case 2: {  // allocate: a random placement among the units back in the pool by now
        if (allocs >= lim.max_allocs) break;
        unsigned units = 1 + unsigned(pick(4));
        std::vector<unsigned> fits;
        for (unsigned b = 0; b + units <= kUnits; ++b)
          if (std::all_of(unit_free.begin() + b, unit_free.begin() + b + units,
                          [&](TimeNs t) { return t <= h; }))
            fits.push_back(b);
        if (fits.empty()) break;
        std::vector<unsigned> reuse;  // placements over bytes some earlier allocation held
        for (unsigned f : fits)
          if (std::any_of(ever_used.begin() + f, ever_used.begin() + f + units, [](bool u) { return u; }))
            reuse.push_back(f);
        unsigned b = !reuse.empty() && pick(4) ? reuse[pick(reuse.size())] : fits[pick(fits.size())];
        std::fill(ever_used.begin() + b, ever_used.begin() + b + units, true);
        std::fill(unit_free.begin() + b, unit_free.begin() + b + units, kNever);
        h += 1;
        e.alloc(h, next_buf, int(pick(std::uint64_t(streams))), b * kUnit, units * kUnit);
        live.push_back({next_buf++, b, units});
        ++allocs;
        break;
      }
      case 3:
      case 4:
      case 5:
      case 6:
      case 15:
      case 16: {  // a kernel: one or two accesses, maybe after an event
        if (live.empty()) break;
        int s = int(pick(std::uint64_t(streams)));
        std::vector<SyntheticEngine::Access> r, w;
        for (int k = 0, n = 1 + int(pick(3) != 0); k < n && accesses < lim.max_accesses; ++k) {
          Live& b = live[pick(live.size())];
          b.streams |= 1u << s;
          bool write = pick(2) || reads >= lim.max_reads;
          (write ? w : r).push_back(range_in(b));
          ++accesses;
          reads += !write;
        }
        std::vector<std::uint64_t> waits;
        TimeNs dep = 0;
        if (!events.empty() && pick(3) == 0) {
          auto [key, done] = events[pick(events.size())];
          waits.push_back(key);
          dep = done;
        }
        e.host_op(h, ready, s, dep, 1 + TimeNs(pick(100)), r, w, waits, {}, "kernel");
        break;
      }
      case 7: {  // record an event
        std::uint64_t key = sync_key(SyncKind::Event, next_key++);
        events.push_back(
            {key, e.host_op(h, ready, int(pick(std::uint64_t(streams))), 0, 0, {}, {}, {}, {key}, "event-record")});
        break;
      }
      case 8: {  // a stream waits on an event
        if (events.empty()) break;
        auto [key, done] = events[pick(events.size())];
        e.host_op(h, ready, int(pick(std::uint64_t(streams))), done, 0, {}, {}, {key}, {}, "stream-wait");
        break;
      }
      case 9: {  // the host syncs a stream or an event, or computes
        if (pick(3) == 0 && !events.empty()) {
          auto [key, done] = events[pick(events.size())];
          h = std::max(h, done) + 1;
          e.acquire_sync(h, kHostAgent, key);
        } else if (pick(2)) {
          e.host_sync_stream(h, ready, int(pick(std::uint64_t(streams))),
                             sync_key(SyncKind::StreamDrain, next_key++));
        } else {
          h += TimeNs(pick(200));
        }
        break;
      }
      case 10: {  // the host reads or writes a live buffer
        if (live.empty() || accesses >= lim.max_accesses) break;
        bool write = pick(2) || reads >= lim.max_reads;
        h += 1;
        e.host_access(h, live[pick(live.size())].id, write);
        ++accesses;
        reads += !write;
        break;
      }
      case 11: {  // an execution takes a semaphore unit; a callback after some stream gives it back
        auto unit = std::min_element(sem_units.begin(), sem_units.end());
        h = std::max(h, *unit) + 1;
        e.acquire_sync(h, kHostAgent, sync_key(SyncKind::Semaphore, 0));
        *unit = kNever;
        callback_after(1u << pick(std::uint64_t(streams)), [&, unit](TimeNs when) {
          e.release_sync(when, kCallbackAgent, sync_key(SyncKind::Semaphore, 0));
          *unit = when;
        });
        break;
      }
      default: {  // release a buffer; free it at once, after syncing some streams, or from a callback
        if (live.empty()) break;
        std::size_t i = pick(live.size());
        Live b = live[i];
        live.erase(live.begin() + std::ptrdiff_t(i));
        h += 1;
        e.release(h, b.id);
        auto give_back = [&, b](TimeNs when) {
          std::fill(unit_free.begin() + b.first, unit_free.begin() + b.first + b.units, when);
        };
        switch (pick(3)) {
          case 0:
            e.pool_free(h, kHostAgent, b.id);
            give_back(h);
            break;
          case 1:
            for (int s = 0; s < streams; ++s)
              if (some_streams(b.streams) >> s & 1) e.host_sync_stream(h, ready, s,
                                                                       sync_key(SyncKind::StreamDrain, next_key++));
            e.pool_free(h, kHostAgent, b.id);
            give_back(h);
            break;
          default:
            callback_after(some_streams(b.streams), [&, b](TimeNs when) {
              e.pool_free(when, kCallbackAgent, b.id);
              give_back(when);
            });
        }
      }
    }
  }
  return e;
}

struct Verdict {
  OracleResult oracle;
  RaceReport detector;
  std::vector<std::string> problems;  // empty: they agree
};

struct Options {
  bool strict = false;  // also require the pairs the fixed gap hid (trace_oracle.h)
  bool enumerate = true;
  std::pair<long, long> drop_edge{-1, -1};
};

Verdict compare(const std::vector<TraceCall>& calls, TimeNs end, const Options& opt) {
  Verdict v;
  RaceDetector d({1u << 20, false});
  allocsim::test::replay(calls, end, d);
  v.detector = d.finish("oracle");
  TraceOracle oracle(calls, opt.drop_edge);
  v.oracle = oracle.run(opt.enumerate);
  auto pair_text = [](AllocPair p) {
    return "(buf" + std::to_string(p.first) + ", buf" + std::to_string(p.second) + ")";
  };
  if (!v.oracle.orders_agree)
    v.problems.push_back("the every-ordering oracle and the reachability oracle disagree");
  std::set<AllocPair> reported;
  for (const Finding& f : v.detector.records) {
    if (f.kind != FindingKind::Latent) continue;
    AllocPair p = std::minmax(f.first.alloc, f.second.alloc);
    if (!reported.insert(p).second) v.problems.push_back("pair " + pair_text(p) + " reported twice");
    if (!v.oracle.latent.count(p)) {
      v.problems.push_back("false pair " + pair_text(p) + ": " + format_finding(f));
      continue;
    }
    auto is = [&](const FindingSide& side, const TraceCall& c) {  // the record's side is access c
      return side.alloc == c.buf && side.write == c.write &&
             side.stream == allocsim::test::agent_label(c.agent) && side.start <= c.t && c.t <= side.end;
    };
    if (std::none_of(v.oracle.racing.begin(), v.oracle.racing.end(),
                     [&](std::pair<std::size_t, std::size_t> xy) {
                       const TraceCall &x = calls[xy.first], &y = calls[xy.second];
                       return (is(f.first, x) && is(f.second, y)) || (is(f.first, y) && is(f.second, x));
                     }))
      v.problems.push_back("pair " + pair_text(p) +
                           ": the record's accesses are not a racing pair: " + format_finding(f));
    AddrRange h = v.oracle.hull.at(p);
    if (f.range.bytes == 0 || f.range.begin < h.begin || f.range.end() > h.end())
      v.problems.push_back("pair " + pair_text(p) + ": range outside the racing bytes: " + format_finding(f));
  }
  if (v.detector.latent != reported.size())
    v.problems.push_back("races_latent " + std::to_string(v.detector.latent) + " but " +
                         std::to_string(reported.size()) + " latent records");
  for (AllocPair p : opt.strict ? v.oracle.required_strict : v.oracle.required)
    if (!reported.count(p)) v.problems.push_back("missed pair " + pair_text(p));
  return v;
}

// Drops calls (never allocations or stream names) one at a time while the disagreement stays.
std::vector<TraceCall> shrink(std::vector<TraceCall> calls, TimeNs end, const Options& opt) {
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t i = calls.size(); i-- > 0;) {
      if (calls[i].kind == TraceCall::Alloc || calls[i].kind == TraceCall::StreamCreated) continue;
      std::vector<TraceCall> fewer = calls;
      fewer.erase(fewer.begin() + std::ptrdiff_t(i));
      if (!compare(fewer, end, opt).problems.empty()) {
        calls = std::move(fewer);
        progress = true;
      }
    }
  }
  return calls;
}

std::string report(const std::vector<TraceCall>& calls, TimeNs end, const Options& opt) {
  std::vector<TraceCall> small = shrink(calls, end, opt);
  Verdict v = compare(small, end, opt);
  std::ostringstream o;
  o << "shrunk trace (call: what   <- cross-agent edges into it):\n" << v.oracle.graph;
  for (const std::string& p : v.problems) o << "  " << p << "\n";
  for (auto [a, b] : v.oracle.racing)
    o << "  racing: #" << a << " " << describe(small[a]) << "  ||  #" << b << " " << describe(small[b])
      << "\n";
  return o.str();
}

struct Totals {
  std::size_t programs = 0, accesses = 0, access_pairs = 0, racing = 0, latent = 0, required = 0, strict = 0,
              reported = 0, enumerated = 0, prefixes = 0, racy_programs = 0;
};

Totals check_programs(std::uint64_t first_seed, std::uint64_t count, const Limits& lim, const Options& opt) {
  Totals t;
  for (std::uint64_t seed = first_seed; seed < first_seed + count; ++seed) {
    SyntheticEngine e = small_program(seed, lim);
    TraceRecorder rec;
    e.play(rec);
    Verdict v = compare(rec.calls, rec.end, opt);
    ++t.programs;
    t.access_pairs += v.oracle.access_pairs;
    t.racing += v.oracle.racing.size();
    t.latent += v.oracle.latent.size();
    t.required += v.oracle.required.size();
    t.strict += v.oracle.required_strict.size();
    t.reported += v.detector.latent;
    t.racy_programs += !v.oracle.latent.empty();
    t.enumerated += v.oracle.prefixes != 0;
    t.prefixes += v.oracle.prefixes;
    for (const TraceCall& c : rec.calls) t.accesses += c.kind == TraceCall::Access;
    if (!v.problems.empty()) {
      INFO("seed " << seed << "\n" << report(rec.calls, rec.end, opt));
      CHECK(v.problems.empty());
    }
  }
  return t;
}

}  // namespace

TEST_CASE("oracle: the detector reports only unordered pairs and misses none it must report") {
  Totals t = check_programs(1, 1000, Limits{}, Options{});
  WARN("programs " << t.programs << " (" << t.racy_programs << " racy), accesses " << t.accesses
                   << ", overlapping access pairs of different allocations " << t.access_pairs << ", racing "
                   << t.racing << "; allocation pairs: oracle " << t.latent << ", required " << t.required
                   << " (" << t.strict << " counting the fixed gap)"
                   << ", reported " << t.reported << "; every-ordering run on " << t.enumerated
                   << " programs, " << t.prefixes << " prefixes");
  CHECK(t.enumerated == t.programs);
  CHECK(t.racy_programs > t.programs / 10);  // not vacuous
  CHECK(t.racy_programs < t.programs / 2);   // and not everything races
}

// A gap the oracle found (now fixed), minimal: buffer 0 is written by s0 and by s1 with nothing
// ordering the two; the host waits for s1 only, frees buffer 0 and writes buffer 1 on the same
// bytes. s0's write and the host's race whichever write ends last. The detector used to keep one
// write of buffer 0 per byte: when s1's ended last, s0's was forgotten and the race missed, so the
// verdict depended on this run's timing (docs/design.md: a latent race does not).
TEST_CASE("oracle: a write is not forgotten when its own allocation writes again unordered") {
  for (bool s1_last : {false, true}) {
    SyntheticEngine e;
    e.stream(0, "s0");
    e.stream(1, "s1");
    e.alloc(1, 0, 0, 0, 16);
    const TimeNs s0_end = s1_last ? 10 : 30, s1_end = 20;
    e.op(e.enqueue(2), 0, 3, s0_end, {}, {{0}});
    e.op(e.enqueue(3), 1, 4, s1_end, {}, {{0}});
    const std::uint64_t drain = sync_key(SyncKind::StreamDrain, 1);
    e.at(s1_end, SyntheticEngine::kOpEnd,
         [drain](Observer& o) { o.on_release_sync(stream_agent(1), drain); });
    e.acquire_sync(40, kHostAgent, drain);
    e.release(41, 0);
    e.pool_free(41, kHostAgent, 0);
    e.alloc(42, 1, 0, 0, 16);
    e.host_access(43, 1, true);
    TraceRecorder rec;
    e.play(rec);
    Verdict v = compare(rec.calls, rec.end, Options{true});
    INFO((s1_last ? "s1's write ends last" : "s0's write ends last") << "\n" << v.oracle.graph);
    CHECK(v.oracle.latent == std::set<AllocPair>{{0, 1}});
    CHECK(v.detector.latent == 1);
  }
}

// Slightly larger programs (up to 24 accesses), ordered by the reachability oracle alone: the
// every-ordering enumeration grows with the product of the agents' lengths.
TEST_CASE("oracle: larger programs, reachability oracle") {
  Limits lim;
  lim.max_accesses = 24;
  lim.max_steps = 80;
  Options opt;
  opt.enumerate = false;
  Totals t = check_programs(100001, 500, lim, opt);
  WARN("programs " << t.programs << " (" << t.racy_programs << " racy), accesses " << t.accesses
                   << ", racing access pairs " << t.racing << "; allocation pairs: oracle " << t.latent
                   << ", required " << t.required << " (" << t.strict << " counting the fixed gap), reported "
                   << t.reported);
  CHECK(t.racy_programs > t.programs / 10);
}
