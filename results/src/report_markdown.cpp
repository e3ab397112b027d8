// report.md: tables, verdict and plot links, all computed from the sweep's results (report.h).
#include <algorithm>
#include <optional>
#include <sstream>

#include "allocsim/core/seeds.h"
#include "allocsim/results/report.h"
#include "report_format.h"
#include "report_guard_cap.h"
#include "report_model.h"

namespace allocsim::results {
using namespace detail;

namespace {

std::string code(const std::string& s) { return "`" + s + "`"; }
std::string option_name(const std::string& p, const std::string& g) { return code(p) + " + " + code(g); }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string ratio_to_baseline(const ScenarioModel& m, const Cell& c, const std::string& guard, int sem) {
  const Cell* base = m.cell(kBaselinePolicy, guard, sem);
  if (!base || base->peak_in_use.mean <= 0) return "n/a";
  return fixed(c.peak_in_use.mean / base->peak_in_use.mean, 2) + "×";
}

/// Relative to `immediate` with the same guard at `sem`: "+12.3%" on a statistic, "n/a" without one.
std::string percent_vs_baseline(const ScenarioModel& m, const Stat Cell::*stat, const Cell& c,
                                const std::string& guard, int sem) {
  const Cell* base = m.cell(kBaselinePolicy, guard, sem);
  if (!base || (base->*stat).mean <= 0) return "n/a";
  return signed_percent((c.*stat).mean / (base->*stat).mean - 1);
}

const std::vector<bool> kSummaryAlign = {false, false, true, true, true, true, true, true, true,
                                         true,  true,  true, true, true, true, true, true};
const std::vector<std::string> kSummaryHeader = {"policy",
                                                 "guard",
                                                 "latent races",
                                                 "manifest races",
                                                 "peak in-use MiB",
                                                 "÷ immediate",
                                                 "peak pool MiB",
                                                 "blocked in policy µs",
                                                 "blocked in OOM µs",
                                                 "blocked on semaphore µs",
                                                 "blocked in syncs µs",
                                                 "device idle µs",
                                                 "host stall µs",
                                                 "makespan ms",
                                                 "callbacks",
                                                 "OOMs",
                                                 "fallbacks"};

/// A sampled point's share of samples with a manifest corruption in any execution, with its
/// interval; "–" for a cell without a summary.
std::string corruption_text(const Cell& c) {
  return c.sampled ? rate_text(c.sampled->samples_with_manifest, c.sampled->samples) : "–";
}

std::string summary_table(const ScenarioModel& m, int sem) {
  // PyTorch traces: the pool beside PyTorch's own max_memory_reserved (the same quantity: bytes the
  // allocator holds from the device), right after the pool column.
  const bool torch = m.has_reference();
  const double reserved = double(m.reference_max_reserved);
  std::vector<std::string> header = kSummaryHeader;
  std::vector<bool> align = kSummaryAlign;
  // A sampled sweep: the share of samples with a manifest corruption, with its interval, right
  // after the manifest race counts it summarises.
  const bool sampled = m.samples > 0;
  const auto after_manifest = std::find(header.begin(), header.end(), "manifest races") - header.begin() + 1;
  if (sampled) {
    header.insert(header.begin() + after_manifest, "manifest corruption");
    align.insert(align.begin() + after_manifest, true);
  }
  const auto after_pool = std::find(header.begin(), header.end(), "peak pool MiB") - header.begin() + 1;
  if (torch) {
    header.insert(header.begin() + after_pool, {"PyTorch max reserved MiB", "peak pool ÷ PyTorch reserved"});
    align.insert(align.begin() + after_pool, {true, true});
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : m.policies)
    for (const auto& g : m.guards) {
      const Cell* c = m.cell(p, g, sem);
      if (!c) continue;
      std::string name = p + (c->incomplete_runs ? " (did not complete: " + std::to_string(c->incomplete_runs) + ")" : "");
      std::vector<std::string> row = {name,
                                      g,
                                      count_spread(c->latent),
                                      count_spread(c->manifest),
                                      spread(c->peak_in_use, kMiB, 2),
                                      ratio_to_baseline(m, *c, g, sem),
                                      spread(c->peak_pool, kMiB, 2),
                                      spread(c->blocked_policy, 1e3, 1),
                                      spread(c->blocked_oom, 1e3, 1),
                                      spread(c->blocked_semaphore, 1e3, 1),
                                      spread(c->blocked_sync, 1e3, 1),
                                      spread(c->device_idle, 1e3, 1),
                                      spread(c->host_stall, 1e3, 1),
                                      spread(c->makespan, 1e6, 3),
                                      count_spread(c->callbacks),
                                      count_spread(c->ooms),
                                      count_spread(c->fallbacks)};
      if (sampled) row.insert(row.begin() + after_manifest, corruption_text(*c));
      if (torch)
        row.insert(row.begin() + after_pool,
                   {fixed(reserved / kMiB, 2), fixed(c->peak_pool.mean / reserved, 3) + "×"});
      rows.push_back(std::move(row));
    }
  return markdown_table(header, align, rows);
}

/// PyTorch traces: what the trace itself says, so the tables below can be read against it.
std::string reference_line(const ScenarioModel& m) {
  if (!m.has_reference()) return {};
  std::ostringstream os;
  os << "PyTorch's own figures for this trace (its metadata): `max_memory_allocated` "
     << fixed(double(m.reference_max_allocated) / kMiB, 2) << " MiB, `max_memory_reserved` "
     << fixed(double(m.reference_max_reserved) / kMiB, 2)
     << " MiB. The summary sets each policy's peak pool (bytes the BFC model holds from the device) beside "
     << "`max_memory_reserved` (bytes PyTorch's caching allocator held from the device).\n\n";
  return os.str();
}

std::string peak_by_semaphore_table(const ScenarioModel& m) {
  std::vector<std::string> header = {"policy", "guard"};
  std::vector<bool> align = {false, false};
  for (int s : m.semaphores) {
    header.push_back("sem " + std::to_string(s));
    align.push_back(true);
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : m.policies)
    for (const auto& g : m.guards) {
      if (!m.option(p, g)) continue;
      std::vector<std::string> row = {p, g};
      for (int s : m.semaphores) {
        const Cell* c = m.cell(p, g, s);
        row.push_back(!c ? "–" : fixed(c->peak_in_use.mean / kMiB, 2) + (c->racy() ? " !" : ""));
      }
      rows.push_back(std::move(row));
    }
  return markdown_table(header, align, rows);
}

// ---- The verdict: one structure (Verdict) computed from the model; the sentences, the ranking
// tables and headline.md are all rendered from it, so a sentence cannot name another option or
// another number than its table.

struct Ranked {
  const Option* option;
  const Cell* cell;
};

// The values a ranking shows, as printed: options that print the same tie.
std::string reserved_text(const Cell& c) { return fixed(c.peak_pool.mean / kMiB, 2); }
std::string in_use_text(const Cell& c) { return fixed(c.peak_in_use.mean / kMiB, 2); }
std::string blocked_text(const Cell& c) { return fixed(c.policy_blocked.mean / 1e3, 1); }
std::string makespan_text(const Cell& c) { return fixed(c.makespan.mean / 1e6, 3); }

struct Verdict {
  int sem = 0;  // the reference capacity: the largest swept
  std::vector<Ranked> race_free;
  std::vector<const Option*> racy, incomplete, oom;
  // Device memory: peak reserved (every pool: a private pool's bytes serve no one else), then
  // peak in-use, then the time key. Time: policy-caused host blocking (policy/guard + OOM waits)
  // when measured, then makespan; then the memory keys.
  std::vector<Ranked> by_memory, by_time;
  std::size_t memory_ties = 0, time_ties = 0;
  std::vector<Ranked> frontier;  // no race-free option is at least as good on both keys and better on one
  // Growth with the capacity: from which swept capacity every option's runs are identical.
  std::optional<int> identical_from;
  // The race-free option whose peak in-use grows most from the smallest swept capacity to `sem`,
  // and the smallest capacity from which it stops growing.
  std::optional<Ranked> largest_growth;
  int growth_min_sem = 0, growth_stops_at = 0;
};

bool memory_less(const Cell& a, const Cell& b) {
  if (a.peak_pool.mean != b.peak_pool.mean) return a.peak_pool.mean < b.peak_pool.mean;
  return a.peak_in_use.mean < b.peak_in_use.mean;
}
bool memory_equal(const Cell& a, const Cell& b) {
  return reserved_text(a) == reserved_text(b) && in_use_text(a) == in_use_text(b);
}

Verdict compute_verdict(const ScenarioModel& m) {
  Verdict v;
  v.sem = m.reference_semaphore();
  for (const auto& o : m.options) {
    if (o.race_free) {
      if (const Cell* c = m.cell(o.policy, o.guard, v.sem)) v.race_free.push_back({&o, c});
    } else if (o.racy_runs > 0) {
      v.racy.push_back(&o);
    }
    if (o.incomplete_runs > 0) v.incomplete.push_back(&o);
    if (o.ooms > 0) v.oom.push_back(&o);
  }
  const bool measured = m.blocking_measured;
  auto time_less = [measured](const Cell& a, const Cell& b) {
    if (measured && a.policy_blocked.mean != b.policy_blocked.mean)
      return a.policy_blocked.mean < b.policy_blocked.mean;
    return a.makespan.mean < b.makespan.mean;
  };
  auto time_equal = [measured](const Cell& a, const Cell& b) {
    return (!measured || blocked_text(a) == blocked_text(b)) && makespan_text(a) == makespan_text(b);
  };
  v.by_memory = v.by_time = v.race_free;
  std::stable_sort(v.by_memory.begin(), v.by_memory.end(), [&](const Ranked& a, const Ranked& b) {
    if (memory_less(*a.cell, *b.cell) || memory_less(*b.cell, *a.cell)) return memory_less(*a.cell, *b.cell);
    return time_less(*a.cell, *b.cell);
  });
  std::stable_sort(v.by_time.begin(), v.by_time.end(), [&](const Ranked& a, const Ranked& b) {
    if (time_less(*a.cell, *b.cell) || time_less(*b.cell, *a.cell)) return time_less(*a.cell, *b.cell);
    return memory_less(*a.cell, *b.cell);
  });
  auto ties = [](const std::vector<Ranked>& r, auto&& equal) {
    std::size_t n = r.empty() ? 0 : 1;
    while (n < r.size() && equal(*r[n].cell, *r[0].cell)) ++n;
    return n;
  };
  v.memory_ties = ties(v.by_memory, memory_equal);
  v.time_ties = ties(v.by_time, time_equal);
  for (const auto& a : v.by_memory) {
    const bool dominated = std::any_of(v.race_free.begin(), v.race_free.end(), [&](const Ranked& b) {
      const bool mem_le = !memory_less(*a.cell, *b.cell), time_le = !time_less(*a.cell, *b.cell);
      return mem_le && time_le && (memory_less(*b.cell, *a.cell) || time_less(*b.cell, *a.cell));
    });
    if (!dominated) v.frontier.push_back(a);
  }
  v.identical_from = m.identical_from();
  if (m.semaphores.size() > 1) {
    v.growth_min_sem = m.semaphores.front();
    double best = 0;
    for (const auto& r : v.race_free) {
      const Cell* low = m.cell(r.option->policy, r.option->guard, v.growth_min_sem);
      if (!low || low->peak_in_use.mean <= 0) continue;
      const double growth = r.cell->peak_in_use.mean / low->peak_in_use.mean;
      if (growth > best) best = growth, v.largest_growth = r;
    }
    if (v.largest_growth && best <= 1) v.largest_growth.reset();
    if (v.largest_growth) {
      // The smallest capacity from which peak in-use no longer changes up to `sem`.
      v.growth_stops_at = v.sem;
      for (auto it = m.semaphores.rbegin() + 1; it != m.semaphores.rend(); ++it) {
        const Cell* c = m.cell(v.largest_growth->option->policy, v.largest_growth->option->guard, *it);
        if (!c || in_use_text(*c) != in_use_text(*v.largest_growth->cell)) break;
        v.growth_stops_at = *it;
      }
    }
  }
  return v;
}

std::string runs_note(const Option& o, int count) {
  return option_name(o.policy, o.guard) + " (" + std::to_string(count) + "/" + std::to_string(o.runs) +
         " runs)";
}

/// "`p` + `g`: peak reserved R MiB, peak in-use U MiB (+x% vs immediate), policy-caused host
/// blocking B µs, makespan M ms (+y%)".
std::string describe(const ScenarioModel& m, const Verdict& v, const Ranked& r) {
  const Cell& c = *r.cell;
  const std::string vs = " vs " + option_name(kBaselinePolicy, r.option->guard) + ")";
  std::string out = option_name(r.option->policy, r.option->guard) + ": peak reserved " + reserved_text(c) +
                    " MiB, peak in-use " + in_use_text(c) + " MiB (" +
                    percent_vs_baseline(m, &Cell::peak_in_use, c, r.option->guard, v.sem) + vs;
  if (m.blocking_measured) out += ", host blocked by the policy " + blocked_text(c) + " µs";
  return out + ", makespan " + makespan_text(c) + " ms (" +
         percent_vs_baseline(m, &Cell::makespan, c, r.option->guard, v.sem) + vs;
}

std::string time_key_name(const ScenarioModel& m) {
  return m.blocking_measured ? "policy-caused host blocking" : "makespan";
}

/// The sentence on what bounds the growth with the semaphore capacity, or "" when nothing does.
std::string growth_bound(const ScenarioModel& m, const Verdict& v) {
  std::ostringstream os;
  if (m.executions > 0 && v.sem >= m.executions)
    os << "the program has " << m.executions << " executions, so from semaphore " << m.executions
       << " on every execution can be in flight and the semaphore never blocks the host";
  if (v.identical_from) {
    std::vector<std::string> sems;
    for (int s : m.semaphores)
      if (s >= *v.identical_from) sems.push_back(std::to_string(s));
    os << (os.tellp() > 0 ? "; " : "") << "every option's runs at semaphores " << join(sems, ", ")
       << " are identical, so the costs at semaphore " << v.sem << " are those of semaphore "
       << *v.identical_from;
  } else if (m.executions > 0 && v.sem > m.executions) {
    os << "; yet the runs at semaphores above " << m.executions << " differ";
  }
  return os.str();
}

/// "a", "a and b", "a, b and c".
std::string and_list(const std::vector<std::string>& parts) {
  if (parts.size() < 2) return join(parts, "");
  return join(std::vector<std::string>(parts.begin(), parts.end() - 1), ", ") + " and " + parts.back();
}

/// "lo–hi" in `unit`, or one number when both print the same.
std::string range_text(double lo, double hi, double unit, int decimals) {
  const std::string a = fixed(lo / unit, decimals), b = fixed(hi / unit, decimals);
  return a == b ? a : a + "–" + b;
}

/// The sentence on which guards cap the deferring policies' growth and the host blocking that
/// explains it (report_guard_cap.h), or "" when no guard does.
std::string guard_cap_sentence(const ScenarioModel& m) {
  const GuardCaps caps = guard_caps(m);
  if (caps.caps.empty()) return {};
  std::vector<std::string> policies;
  for (const auto& p : caps.deferring) policies.push_back(code(p));
  const bool one = policies.size() == 1;
  std::ostringstream os;
  os << and_list(policies) << (one ? " defers" : " defer") << " frees (with " << code(kNoGuard)
     << (one ? " its" : " their") << " peak in-use is larger at semaphore " << caps.sem << " than at "
     << caps.low_sem << ") and " << (one ? "reaches " : "reach ")
     << range_text(caps.none_lo, caps.none_hi, kMiB, 2) << " MiB in use at semaphore " << caps.sem << " with "
     << code(kNoGuard);
  for (const GuardCap& c : caps.caps) {
    os << "; with " << code(c.guard) << (one ? " it reaches " : " they reach ")
       << range_text(c.in_use_lo, c.in_use_hi, kMiB, 2) << " MiB, as ";
    const std::string blocked =
        range_text(c.blocked_lo, c.blocked_hi, 1e3, 1) + " µs longer per run than with " + code(kNoGuard);
    if (c.cause == GuardCap::Cause::OwnWaits)
      os << "the guard's own waits block the host " << blocked;
    else
      os << "the guard's own waits do not block the host but the program's own syncs block it " << blocked;
  }
  os << "; while the host is blocked, compute drains and the pending frees return, so the host cannot run "
        "further ahead than from one such wait to the next";
  return os.str();
}

std::string growth_sentence(const ScenarioModel& m, const Verdict& v) {
  if (!v.largest_growth) return {};
  const Ranked& r = *v.largest_growth;
  const Cell* low = m.cell(r.option->policy, r.option->guard, v.growth_min_sem);
  std::ostringstream os;
  os << "Largest growth with the semaphore capacity among race-free options: "
     << option_name(r.option->policy, r.option->guard) << ", peak in-use " << in_use_text(*low)
     << " MiB at semaphore " << v.growth_min_sem << " to " << in_use_text(*r.cell) << " MiB at semaphore "
     << v.sem << " (" << percent_vs_baseline(m, &Cell::peak_in_use, *r.cell, r.option->guard, v.sem) << " vs "
     << option_name(kBaselinePolicy, r.option->guard) << ")";
  if (v.growth_stops_at < v.sem) os << "; it stops growing at semaphore " << v.growth_stops_at;
  return os.str();
}

std::string ranking_table(const ScenarioModel& m, const std::vector<Ranked>& ranked, int sem) {
  std::vector<std::string> header = {"rank",        "policy", "guard", "peak reserved MiB", "peak in-use MiB",
                                     "vs immediate"};
  if (m.blocking_measured) header.push_back("host blocked by policy µs");
  header.insert(header.end(), {"makespan ms", "vs immediate"});
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const Cell& c = *ranked[i].cell;
    const std::string& g = ranked[i].option->guard;
    std::vector<std::string> row = {std::to_string(i + 1),
                                    ranked[i].option->policy,
                                    g,
                                    reserved_text(c),
                                    in_use_text(c),
                                    percent_vs_baseline(m, &Cell::peak_in_use, c, g, sem)};
    if (m.blocking_measured) row.push_back(blocked_text(c));
    row.insert(row.end(), {makespan_text(c), percent_vs_baseline(m, &Cell::makespan, c, g, sem)});
    rows.push_back(std::move(row));
  }
  std::vector<bool> align(header.size(), true);
  align[1] = align[2] = false;
  return markdown_table(header, align, rows);
}

/// The verdict's sentences, each with its role, so the report lists them all and headline.md picks
/// the ones a README quotes; empty = does not apply.
struct VerdictLines {
  std::string race_free, racy, corruption, incomplete, oom, none_free, memory, reserved_flat, time, frontier,
      growth, bound, guard_cap;
  std::vector<const std::string*> all() const {
    return {&race_free,     &racy, &corruption, &incomplete, &oom,   &none_free, &memory,
            &reserved_flat, &time, &frontier,   &growth,     &bound, &guard_cap};
  }
  std::vector<const std::string*> headline() const {
    return {&racy, &corruption, &none_free, &memory, &reserved_flat, &time, &growth, &bound, &guard_cap};
  }
};

/// A sampled sweep: each option's manifest-corruption rate at the reference capacity, with its
/// interval; the options with none share one clause, since their interval only depends on n.
std::string corruption_sentence(const ScenarioModel& m, const Verdict& v) {
  std::vector<std::string> hit;
  std::optional<int> none_n;
  std::size_t none = 0, points = 0;
  for (const auto& o : m.options) {
    const Cell* c = m.cell(o.policy, o.guard, v.sem);
    if (!c || !c->sampled) continue;
    ++points;
    if (c->sampled->samples_with_manifest > 0)
      hit.push_back(option_name(o.policy, o.guard) + " " + corruption_text(*c));
    else
      ++none, none_n = c->sampled->samples;
  }
  if (points == 0) return {};
  std::string out = "Manifest corruption at semaphore " + std::to_string(v.sem) +
                    " (share of samples with one in any execution, 95% Clopper-Pearson interval): ";
  if (hit.empty()) return out + rate_text(0, *none_n) + " for every option (no sample had one).";
  out += join(hit, ", ");
  if (none > 0) out += "; every other option " + rate_text(0, *none_n);
  return out + ".";
}

VerdictLines verdict_lines(const ScenarioModel& m, const Verdict& v) {
  VerdictLines l;
  auto names = [](const std::vector<const Option*>& list, auto&& count) {
    std::vector<std::string> out;
    for (const Option* o : list) out.push_back(runs_note(*o, count(*o)));
    return join(out, ", ");
  };
  l.race_free = "Race-free: " + std::to_string(v.race_free.size()) + " of " +
                std::to_string(m.options.size()) + " options.";
  if (!v.racy.empty())
    l.racy = "Racy (runs with a latent or manifest race): " +
             names(v.racy, [](const Option& o) { return o.racy_runs; }) + ".";
  l.corruption = corruption_sentence(m, v);
  if (!v.incomplete.empty())
    l.incomplete = "Did not complete (deadlock or starvation): " +
                   names(v.incomplete, [](const Option& o) { return o.incomplete_runs; }) + ".";
  if (!v.oom.empty()) {
    std::vector<std::string> out;
    for (const Option* o : v.oom)
      out.push_back(option_name(o->policy, o->guard) + " (" + std::to_string(o->ooms) + ")");
    l.oom = "Allocation failures (OOMs, all runs): " + join(out, ", ") + ".";
  }
  if (v.race_free.empty()) {
    l.none_free = "No option was race-free in every run.";
    return l;
  }
  l.memory = "Least device memory among race-free options at semaphore " + std::to_string(v.sem) + ": " +
             describe(m, v, v.by_memory.front());
  if (v.memory_ties > 1)
    l.memory += "; " + std::to_string(v.memory_ties) + " options tie at " +
                reserved_text(*v.by_memory.front().cell) + " MiB reserved and " +
                in_use_text(*v.by_memory.front().cell) + " MiB in use, ordered by " + time_key_name(m) +
                " (then sweep order)";
  l.memory += ".";
  // Peak reserved that does not follow peak in-use (pools that take their whole limit at first
  // use): say so, or the tie at the top reads as if those options needed the same memory.
  std::size_t same_reserved = 0;
  double lo = 0, hi = 0;
  for (const auto& r : v.race_free)
    if (reserved_text(*r.cell) == reserved_text(*v.by_memory.front().cell)) {
      const double u = r.cell->peak_in_use.mean;
      lo = same_reserved ? std::min(lo, u) : u, hi = same_reserved ? std::max(hi, u) : u;
      ++same_reserved;
    }
  if (same_reserved > 1 && fixed(lo / kMiB, 2) != fixed(hi / kMiB, 2))
    l.reserved_flat = "Peak reserved is " + reserved_text(*v.by_memory.front().cell) + " MiB for " +
                      std::to_string(same_reserved) + " race-free options whose peak in-use ranges " +
                      fixed(lo / kMiB, 2) + "–" + fixed(hi / kMiB, 2) +
                      " MiB: their reserved bytes do not follow what they use, so peak in-use is what "
                      "separates them.";
  l.time = "Least " + time_key_name(m) + " among race-free options at semaphore " + std::to_string(v.sem) +
           ": " + describe(m, v, v.by_time.front());
  if (v.time_ties > 1)
    l.time +=
        "; " + std::to_string(v.time_ties) + " options tie, ordered by device memory (then sweep order)";
  l.time += ".";
  std::vector<std::string> frontier;
  for (const auto& r : v.frontier) frontier.push_back(option_name(r.option->policy, r.option->guard));
  l.frontier = "Trade-off frontier (no race-free option needs no more device memory and no more " +
               time_key_name(m) + ", and less of one): " + join(frontier, ", ") + ".";
  if (std::string g = growth_sentence(m, v); !g.empty()) l.growth = g + ".";
  if (std::string bound = growth_bound(m, v); !bound.empty())
    l.bound = "What bounds the growth: " + bound + ".";
  if (std::string cap = guard_cap_sentence(m); !cap.empty())
    l.guard_cap = "What caps the deferring options: " + cap + ".";
  return l;
}

std::string verdict(const ScenarioModel& m, const Verdict& v) {
  std::ostringstream os;
  os << "### Verdict\n\n";
  os << "Computed from the runs below. An option is a policy + guard pair; it is **race-free** when none of "
        "its "
     << "runs (every semaphore capacity and seed) had a latent or a manifest race and every run completed. "
     << "Costs are at semaphore " << v.sem
     << " (the largest capacity swept), relative to `immediate` with the "
     << "same guard. Device memory is what a user must provision: **peak reserved**, the bytes every pool "
     << "(shared and the autotuner's private one) holds from the device, then peak in-use. Host time is ";
  if (m.blocking_measured)
    os << "the host's blocking the policy causes (its and the guard's waits, and waits for frees on OOM), "
          "then "
       << "makespan; the semaphore and the program's own syncs are the workload's, and host stall (the host's "
       << "blocked time, every cause) is listed but not ranked on, as it is mostly the program's final sync.\n\n";
  else
    os << "makespan: these runs do not report host blocking by cause (every cause is 0 in every run: results "
       << "from an engine that did not measure it). Host stall (the host's blocked time, every cause) is listed "
       << "but not ranked on, as it is mostly the program's final sync.\n\n";
  const VerdictLines lines = verdict_lines(m, v);  // all() points into it
  for (const std::string* line : lines.all())
    if (!line->empty()) os << "- " << *line << "\n";
  os << "\n";
  if (v.race_free.empty()) return os.str();
  os << "Race-free options ranked by device memory (semaphore " << v.sem << "):\n\n"
     << ranking_table(m, v.by_memory, v.sem) << "\n";
  os << "Race-free options ranked by " << time_key_name(m) << " (semaphore " << v.sem << "):\n\n"
     << ranking_table(m, v.by_time, v.sem) << "\n";
  return os.str();
}

std::string sweep_line(const ReportInput& in, const ScenarioModel& m) {
  std::size_t runs = 0;
  for (const auto& r : in.runs) runs += r.scenario == m.name;
  std::vector<std::string> sems;
  for (int s : m.semaphores) sems.push_back(std::to_string(s));
  std::ostringstream os;
  os << runs << " runs: " << m.policies.size() << " policies × " << m.guards.size() << " guards × semaphore capacity {"
     << join(sems, ", ") << "} × ";
  // A sampled sweep's seeds are its samples' (sample i: base + i), each point playing all of them.
  const bool sampled = in.spec.samples > 0;
  const int n = sampled ? in.spec.samples : in.spec.seeds;
  const std::string seed_range =
      std::to_string(in.spec.base_seed) +
      (n > 1 ? "–" + std::to_string(seeds::nth(in.spec.base_seed, std::uint64_t(n - 1))) : std::string());
  if (sampled)
    os << n << " sample" << (n == 1 ? " (seed " : "s (seeds ") << seed_range
       << ", every cost drawn from the spread of `" << in.spec.platform << "`)";
  else
    os << n << " seed" << (n == 1 ? "" : "s") << " (" << seed_range << ")";
  std::vector<std::string> sets;
  for (const auto& [k, v] : in.spec.sets) sets.push_back("`" + k + "=" + v + "`");
  if (!sets.empty()) os << "; --set " << join(sets, ", ");
  if (in.spec.samples == 0 && !in.spec.platform.empty()) os << "; platform `" << in.spec.platform << "`";
  os << ".\n";
  if (in.spec.samples > 0)
    os << "\nEach point's runs are its samples: where the tables give means and `[min–max]` over seeds, they "
          "are over the samples.\n";
  return os.str();
}

/// A sampled sweep: every point's manifest corruption by execution, and its distributions over the
/// samples; "" for an unsampled sweep.
std::string samples_section(const ScenarioModel& m) {
  struct Row {
    std::string policy, guard;
    int sem;
    const SampleSummary* s;
  };
  std::vector<Row> rows;
  for (const auto& p : m.policies)
    for (const auto& g : m.guards)
      for (int sem : m.semaphores)
        if (const Cell* c = m.cell(p, g, sem); c && c->sampled) rows.push_back({p, g, sem, &*c->sampled});
  if (rows.empty()) return {};
  // Only the executions some sample corrupted get a column: the others are all "0.0%" and a program
  // may have many executions.
  constexpr std::size_t kMaxExecutionColumns = 12;
  int executions = 0;
  for (const Row& r : rows) executions = std::max(executions, r.s->executions);
  std::vector<int> hit;
  for (int e = 0; e < executions; ++e)
    if (std::any_of(rows.begin(), rows.end(), [&](const Row& r) {
          return std::size_t(e) < r.s->manifest_by_execution.size() && r.s->manifest_by_execution[std::size_t(e)] > 0;
        }))
      hit.push_back(e);
  std::ostringstream os;
  os << "### Over the samples\n\n"
     << "Each point played the program " << m.samples << " time" << (m.samples == 1 ? "" : "s")
     << ". Manifest corruption: the share of samples with one, with its 95% Clopper-Pearson interval in "
        "percent, in any execution and in each execution that had one in some sample";
  if (hit.empty()) os << " (no execution had one in any sample)";
  else if (hit.size() < std::size_t(executions))
    os << " (the program's other " << std::size_t(executions) - hit.size() << " executions had none)";
  if (hit.size() > kMaxExecutionColumns)
    os << "; the first " << kMaxExecutionColumns << " of them are shown, `samples.csv` has every one";
  os << ".\n\n";
  if (hit.size() > kMaxExecutionColumns) hit.resize(kMaxExecutionColumns);

  std::vector<std::string> header = {"policy", "guard", "semaphore", "any execution"};
  for (int e : hit) header.push_back("execution " + std::to_string(e));
  std::vector<bool> align(header.size(), true);
  align[0] = align[1] = false;
  std::vector<std::vector<std::string>> table;
  for (const Row& r : rows) {
    std::vector<std::string> row = {r.policy, r.guard, std::to_string(r.sem),
                                    rate_text(r.s->samples_with_manifest, r.s->samples)};
    for (int e : hit)
      row.push_back(std::size_t(e) < r.s->manifest_by_execution.size()
                        ? rate_text(r.s->manifest_by_execution[std::size_t(e)], r.s->samples)
                        : "–");
    table.push_back(std::move(row));
  }
  os << markdown_table(header, align, table) << "\n";

  auto three = [](const SampleQuantiles& q, double unit, int decimals) {
    return fixed(double(q.median) / unit, decimals) + " / " + fixed(double(q.p95) / unit, decimals) + " / " +
           fixed(double(q.max) / unit, decimals);
  };
  os << "Distributions over the samples, median / p95 / max.\n\n";
  table.clear();
  for (const Row& r : rows)
    table.push_back({r.policy, r.guard, std::to_string(r.sem), three(r.s->latent, 1, 0),
                     three(r.s->peak_bytes_in_use, kMiB, 2), three(r.s->host_blocked_policy_ns, 1e3, 1),
                     three(r.s->makespan_ns, 1e6, 3), std::to_string(r.s->incomplete)});
  os << markdown_table({"policy", "guard", "semaphore", "latent races", "peak in-use MiB", "blocked in policy µs",
                        "makespan ms", "did not complete"},
                       {false, false, true, true, true, true, true, true}, table)
     << "\n";
  return os.str();
}

std::string plots_section(const ReportInput& in, const ReportOutcome& plots, const ScenarioModel& m) {
  std::ostringstream os;
  os << "### Plots\n\n";
  if (plots.plots.empty()) {
    os << "No plots: " << plots.plot_note << "\n\n";
    return os.str();
  }
  auto has = [&](const std::string& f) { return std::find(plots.plots.begin(), plots.plots.end(), f) != plots.plots.end(); };
  const std::string guard = pick_plot_guard(in);
  if (has("peak_vs_semaphore.png"))
    os << "Peak in-use vs compute-semaphore capacity, one line per policy, guard `" << guard
       << "` (the guard under which most policies are race-free); bars span the seeds' min–max, "
       << "crosses mark racy points.\n\n![peak in-use vs semaphore capacity](peak_vs_semaphore.png)\n\n";
  if (has("host_time_vs_peak.png"))
    os << (m.blocking_measured ? "Host time blocked by the policy" : "Makespan")
       << " vs peak in-use at semaphore " << m.reference_semaphore()
       << ": one point per policy (colour) and guard (shape), mean over seeds; circled points had races.\n\n"
       << "![host time vs peak in-use](host_time_vs_peak.png)\n\n";
  if (has("memory_over_time.png"))
    os << "Live / pending / in-use bytes over time, one run per policy (guard `" << in.series.guard << "`, semaphore "
       << in.series.semaphore << ", seed " << in.series.seed << ").\n\n"
       << "![memory over time](memory_over_time.png)\n\n";
  if (!plots.plot_note.empty()) os << plots.plot_note << "\n\n";
  return os.str();
}

}  // namespace

std::string render_report_markdown(const ReportInput& in, const ReportOutcome& plots) {
  auto models = build_models(in);
  std::ostringstream os;
  os << "# Peak-memory trade-off report\n\n"
     << "Generated by `allocsim report` from `results.json` (one row per run in `results.csv`). "
     << "Values are means over seeds, with `[min–max]` where the seeds differ. Memory in MiB (2^20 bytes), "
     << "times in µs, makespan in ms. `÷ immediate`: peak in-use relative to policy `immediate` with the "
     << "same guard and semaphore. Peak pool = peak reserved: bytes all pools hold from the device. Host "
     << "time blocked, by cause: in the policy's and guard's waits, in OOM waits, on the compute semaphore, "
     << "in the program's own syncs; host stall = their sum, the host's blocked time.\n\n";
  if (models.empty()) os << "The sweep has no runs.\n";
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& m = models[i];
    const int sem = m.reference_semaphore();
    os << "## Scenario `" << m.name << "`\n\n" << sweep_line(in, m) << "\n" << reference_line(m);
    os << verdict(m, compute_verdict(m));
    os << "### Summary at semaphore " << sem << "\n\n" << summary_table(m, sem) << "\n";
    os << samples_section(m);
    if (m.semaphores.size() > 1)
      os << "### Peak in-use (MiB) by semaphore capacity\n\n"
         << "Mean over seeds; `!` marks a cell where at least one run had a latent or manifest race.\n\n"
         << peak_by_semaphore_table(m) << "\n";
    if (i == 0) os << plots_section(in, plots, m);
    if (m.semaphores.size() > 1) {
      os << "### All runs by semaphore capacity\n\n";
      for (int s : m.semaphores)
        if (s != sem) os << "#### Semaphore " << s << "\n\n" << summary_table(m, s) << "\n";
    }
  }
  return os.str();
}

std::string render_headline_markdown(const ReportInput& in) {
  auto models = build_models(in);
  if (models.empty()) return "The sweep has no runs.\n";
  const ScenarioModel& m = models.front();
  std::string out;
  const VerdictLines lines = verdict_lines(m, compute_verdict(m));  // headline() points into it
  for (const std::string* line : lines.headline())
    if (!line->empty()) out += "- " + *line + "\n";
  return out;
}

}  // namespace allocsim::results
