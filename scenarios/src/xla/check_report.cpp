// The text `allocsim xla-check` prints (format_check in xla_check.h). Integers only, so the output
// is the same on every machine.
#include <algorithm>
#include <set>

#include "allocsim/scenarios/xla_check.h"
#include "hex.h"

namespace allocsim::xla {
namespace {

// Picoseconds as milliseconds with 6 decimals (nanosecond resolution), without floating point.
std::string ms(std::int64_t ps) {
  const std::int64_t ns = ps / 1000;
  std::string frac = std::to_string((ns < 0 ? -ns : ns) % 1'000'000);
  frac.insert(0, 6 - frac.size(), '0');
  return (ns < 0 ? "-" : "") + std::to_string((ns < 0 ? -ns : ns) / 1'000'000) + "." + frac + " ms";
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

// "1 free", "2 frees".
std::string count(std::size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string num(std::uint64_t v, std::size_t width = 12) { return pad(std::to_string(v), width); }

const char* kind_of(const AllocatorEvent& e) {
  return e.kind == AllocatorEvent::Kind::kAlloc ? "alloc" : "free ";
}

// One event: the profile's values, and the replay's below them when the event was replayed.
void event_lines(std::string& out, const Profile& p, const CheckResult& r, std::size_t i) {
  const AllocatorEvent& e = p.events[i];
  const bool bad = r.mismatch == i;
  out += (bad ? "> " : "  ") + pad(std::to_string(i), 7) + " " + kind_of(e) + " " + pad(ms(e.time_ps), 16) +
         "  " + p.threads[e.thread] + "\n";
  out += "           profile  requested" + num(e.requested_bytes) + "  addr " + hex(e.addr);
  if (i < r.expected.size()) {
    const ProfileSide& x = r.expected[i];
    const ReplayedEvent& y = r.replayed[i];
    out += "  region " + std::to_string(y.region) + "\n";
    out += "           profile  chunk" + num(x.chunk_bytes) + "  offset" + num(x.offset, 14) + "  in use" +
           num(x.bytes_in_use, 14) + "  peak" + num(x.peak_bytes_in_use, 14) + "\n";
    if (!y.placed) {
      out += "           replay   out of memory (no chunk)\n";
      return;
    }
    out += "           replay   chunk" + num(y.chunk_bytes) + "  offset" + num(y.offset, 14) + "  in use" +
           num(y.bytes_in_use, 14) + "  peak" + num(y.peak_bytes_in_use, 14) + "\n";
  } else {
    out += "\n           profile  chunk" + num(e.allocation_bytes) + "  in use" + num(e.bytes_allocated, 14) +
           "  peak" + num(e.peak_bytes_in_use, 14) + "  (not replayed)\n";
  }
}

std::string differences(const ProfileSide& x, const ReplayedEvent& y) {
  if (!y.placed) return "the replay's pool could not place the allocation (out of memory)";
  std::string d;
  auto diff = [&](const char* what, std::uint64_t a, std::uint64_t b) {
    if (a != b)
      d += (d.empty() ? "" : "; ") + std::string(what) + ": profile " + std::to_string(a) + ", replay " +
           std::to_string(b);
  };
  diff("chunk size", x.chunk_bytes, y.chunk_bytes);
  diff("offset", x.offset, y.offset);
  diff("bytes in use", x.bytes_in_use, y.bytes_in_use);
  diff("peak", x.peak_bytes_in_use, y.peak_bytes_in_use);
  return d;
}

}  // namespace

std::string format_check(const Profile& p, const CheckResult& r, std::size_t context) {
  const BfcOptions& o = r.inferred.options;
  std::set<std::uint32_t> threads;
  for (const AllocatorEvent& e : p.events) threads.insert(e.thread);
  std::string others;
  for (const std::string& a : p.allocators)
    if (a != p.allocator) others += (others.empty() ? "" : ", ") + a;

  std::string out;
  out += "profile     " + p.source + "\n";
  out += "allocator   " + p.allocator +
         (others.empty() ? "" : " (also in the profile, not checked: " + others + ")") + "\n";
  out += "events      " + std::to_string(p.events.size()) + " (" + count(p.allocs, "allocation") + ", " +
         count(p.frees, "free") + ") from " + count(threads.size(), "host thread") + ", over " +
         ms(p.events.back().time_ps - p.events.front().time_ps) + "\n";
  out +=
      "options     memory_limit " + std::to_string(o.memory_limit) + " (" + r.inferred.limit_evidence + ")\n";
  out += "            allow_growth " + std::string(o.allow_growth ? "on" : "off") + " (" +
         r.inferred.growth_evidence + ")\n";
  out +=
      "            garbage_collection off, region coalescing off (XLA's GPU client defaults; a profile does "
      "not "
      "show them)\n";
  out += "regions     " + std::to_string(r.region_bases.size()) + " (bases from the profile:";
  for (Addr b : r.region_bases) out += " " + hex(b);
  out += ")\n";
  out +=
      "compared    per event: chunk size, offset from its region's base, bytes in use after, peak so far\n";
  if (r.matched()) {
    out += "peak        " + std::to_string(r.peak_bytes_in_use) + " bytes in use (profile and replay)\n";
    out += "live        " + count(r.live_at_end, "allocation") + " never freed\n";
    out += "result      MATCH: " + std::to_string(p.events.size()) + " of " +
           std::to_string(p.events.size()) + " events agree\n";
    return out;
  }
  const std::size_t i = *r.mismatch;
  out += "peak        " + std::to_string(r.peak_bytes_in_use) + " bytes in use in the replay up to event " +
         std::to_string(i) + ", " + std::to_string(p.events.back().peak_bytes_in_use) +
         " in the whole profile\n";
  out += "result      MISMATCH at event " + std::to_string(i) + " of " + std::to_string(p.events.size()) +
         " (" + std::to_string(i) + " agree before it): " + differences(r.expected[i], r.replayed[i]) + "\n";
  out += "context     (offsets from the region base; times from the profile's start)\n";
  const std::size_t span = std::min(context, p.events.size());  // i + span + 1 cannot wrap
  const std::size_t from = i > span ? i - span : 0;
  const std::size_t to = std::min(p.events.size(), i + span + 1);
  for (std::size_t k = from; k < to; ++k) event_lines(out, p, r, k);
  return out;
}

}  // namespace allocsim::xla
