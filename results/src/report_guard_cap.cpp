// Which guards cap the deferring policies' growth, and why (see report_guard_cap.h).
#include "report_guard_cap.h"

#include <algorithm>
#include <cmath>

namespace allocsim::results::detail {
namespace {

// Blocking is printed in µs with one decimal: a difference that prints as 0.0 is no difference.
constexpr double kPrintedNs = 50;
bool positive(double ns) { return ns >= kPrintedNs; }
bool zero(double ns) { return std::fabs(ns) < kPrintedNs; }

struct Range {
  double lo = 0, hi = 0;
  int n = 0;
  void add(double v) {
    lo = n ? std::min(lo, v) : v, hi = n ? std::max(hi, v) : v;
    ++n;
  }
};

}  // namespace

GuardCaps guard_caps(const ScenarioModel& m) {
  GuardCaps out;
  if (m.semaphores.size() < 2 || !m.blocking_measured) return out;
  out.low_sem = m.semaphores.front();
  out.sem = m.semaphores.back();
  Range none;
  for (const auto& p : m.policies) {
    const Option* o = m.option(p, kNoGuard);
    const Cell *low = m.cell(p, kNoGuard, out.low_sem), *high = m.cell(p, kNoGuard, out.sem);
    if (!o || !o->race_free || !low || !high || high->peak_in_use.mean <= low->peak_in_use.mean) continue;
    out.deferring.push_back(p);
    none.add(high->peak_in_use.mean);
  }
  if (out.deferring.empty()) return out;
  out.none_lo = none.lo, out.none_hi = none.hi;
  for (const auto& g : m.guards) {
    if (g == kNoGuard) continue;
    Range in_use, own, sync;
    for (const auto& p : out.deferring) {
      const Option* o = m.option(p, g);
      const Cell *c = m.cell(p, g, out.sem), *base = m.cell(p, kNoGuard, out.sem);
      if (!o || !o->race_free || !c) continue;
      in_use.add(c->peak_in_use.mean);
      own.add(c->blocked_policy.mean - base->blocked_policy.mean);
      sync.add(c->blocked_sync.mean - base->blocked_sync.mean);
    }
    // Caps: every deferring option under the guard peaks below every one of them with `none`.
    if (in_use.n == 0 || in_use.hi >= none.lo) continue;
    GuardCap cap{g, in_use.lo, in_use.hi};
    if (positive(own.lo)) {
      cap.cause = GuardCap::Cause::OwnWaits, cap.blocked_lo = own.lo, cap.blocked_hi = own.hi;
    } else if (zero(own.lo) && zero(own.hi) && positive(sync.lo)) {
      cap.cause = GuardCap::Cause::ProgramSyncs, cap.blocked_lo = sync.lo, cap.blocked_hi = sync.hi;
    } else {
      continue;  // lower, but the data shows no blocking that would explain it: say nothing
    }
    out.caps.push_back(cap);
  }
  return out;
}

}  // namespace allocsim::results::detail
