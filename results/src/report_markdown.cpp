// report.md: tables, verdict and plot links, all computed from the sweep's results (report.h).
#include <algorithm>
#include <sstream>

#include "allocsim/core/seeds.h"
#include "allocsim/results/report.h"
#include "report_format.h"
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

/// "+12.3% peak in-use" style costs of option (p, g) vs immediate + g at `sem`.
struct Cost {
  bool known = false;
  std::string peak, stall;
};
Cost cost_vs_baseline(const ScenarioModel& m, const Cell& c, const std::string& guard, int sem) {
  const Cell* base = m.cell(kBaselinePolicy, guard, sem);
  if (!base || base->peak_in_use.mean <= 0) return {false, "n/a", "n/a"};
  return {true, signed_percent(c.peak_in_use.mean / base->peak_in_use.mean - 1),
          signed_us(c.host_stall.mean - base->host_stall.mean)};
}

const std::vector<bool> kSummaryAlign = {false, false, true, true, true, true, true, true, true, true, true};
const std::vector<std::string> kSummaryHeader = {
    "policy",  "guard",           "latent races", "manifest races", "peak in-use MiB", "÷ immediate",
    "peak pool MiB", "host stall µs", "makespan ms",  "callbacks",      "OOMs"};

std::string summary_table(const ScenarioModel& m, int sem) {
  // PyTorch traces: the pool beside PyTorch's own max_memory_reserved (the same quantity: bytes the
  // allocator holds from the device), right after the pool column.
  const bool torch = m.has_reference();
  const double reserved = double(m.reference_max_reserved);
  std::vector<std::string> header = kSummaryHeader;
  std::vector<bool> align = kSummaryAlign;
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
      std::vector<std::string> row = {name, g, count_spread(c->latent), count_spread(c->manifest),
                                      spread(c->peak_in_use, kMiB, 2), ratio_to_baseline(m, *c, g, sem),
                                      spread(c->peak_pool, kMiB, 2), spread(c->host_stall, 1e3, 1),
                                      spread(c->makespan, 1e6, 3), count_spread(c->callbacks), count_spread(c->ooms)};
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

struct Ranked {
  const Option* option;
  const Cell* cell;
};

std::string ranking_table(const ScenarioModel& m, const std::vector<Ranked>& ranked, int sem, bool by_stall) {
  std::vector<std::string> header = {"rank", "policy", "guard"};
  if (by_stall)
    header.insert(header.end(), {"host stall µs", "vs immediate", "peak in-use MiB", "vs immediate"});
  else
    header.insert(header.end(), {"peak in-use MiB", "vs immediate", "host stall µs", "vs immediate"});
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& r = ranked[i];
    Cost cost = cost_vs_baseline(m, *r.cell, r.option->guard, sem);
    std::string peak = fixed(r.cell->peak_in_use.mean / kMiB, 2), stall = fixed(r.cell->host_stall.mean / 1e3, 1);
    std::vector<std::string> row = {std::to_string(i + 1), r.option->policy, r.option->guard};
    if (by_stall) row.insert(row.end(), {stall, cost.stall, peak, cost.peak});
    else row.insert(row.end(), {peak, cost.peak, stall, cost.stall});
    rows.push_back(std::move(row));
  }
  return markdown_table(header, {true, false, false, true, true, true, true}, rows);
}

std::string verdict(const ScenarioModel& m) {
  std::ostringstream os;
  const int sem = m.reference_semaphore();
  std::vector<Ranked> free;
  std::vector<std::string> racy, incomplete, oom;
  for (const auto& o : m.options) {
    if (o.race_free) {
      if (const Cell* c = m.cell(o.policy, o.guard, sem)) free.push_back({&o, c});
    } else if (o.racy_runs > 0) {
      racy.push_back(option_name(o.policy, o.guard) + " (" + std::to_string(o.racy_runs) + "/" +
                     std::to_string(o.runs) + " runs)");
    }
    if (o.incomplete_runs > 0)
      incomplete.push_back(option_name(o.policy, o.guard) + " (" + std::to_string(o.incomplete_runs) + "/" +
                           std::to_string(o.runs) + " runs)");
    if (o.ooms > 0) oom.push_back(option_name(o.policy, o.guard) + " (" + std::to_string(o.ooms) + ")");
  }
  os << "### Verdict\n\n";
  os << "Computed from the runs below. An option is a policy + guard pair; it is **race-free** when none of its "
     << "runs (every semaphore capacity and seed) had a latent or a manifest race and every run completed. "
     << "Costs are at semaphore " << sem << " (the largest capacity swept, where the host runs furthest ahead), "
     << "relative to `immediate` with the same guard.\n\n";
  os << "- Race-free: " << free.size() << " of " << m.options.size() << " options.\n";
  if (!racy.empty()) os << "- Racy (runs with a latent or manifest race): " << join(racy, ", ") << ".\n";
  if (!incomplete.empty()) os << "- Did not complete (deadlock or starvation): " << join(incomplete, ", ") << ".\n";
  if (!oom.empty()) os << "- Allocation failures (OOMs, all runs): " << join(oom, ", ") << ".\n";
  if (free.empty()) {
    os << "- No option was race-free in every run.\n\n";
    return os.str();
  }
  auto by_peak = free, by_stall = free;
  std::stable_sort(by_peak.begin(), by_peak.end(), [](const Ranked& a, const Ranked& b) {
    if (a.cell->peak_in_use.mean != b.cell->peak_in_use.mean) return a.cell->peak_in_use.mean < b.cell->peak_in_use.mean;
    return a.cell->host_stall.mean < b.cell->host_stall.mean;
  });
  std::stable_sort(by_stall.begin(), by_stall.end(), [](const Ranked& a, const Ranked& b) {
    if (a.cell->host_stall.mean != b.cell->host_stall.mean) return a.cell->host_stall.mean < b.cell->host_stall.mean;
    return a.cell->peak_in_use.mean < b.cell->peak_in_use.mean;
  });
  auto describe = [&](const Ranked& r) {
    Cost c = cost_vs_baseline(m, *r.cell, r.option->guard, sem);
    return option_name(r.option->policy, r.option->guard) + ": peak in-use " +
           fixed(r.cell->peak_in_use.mean / kMiB, 2) + " MiB (" + c.peak + "), host stall " +
           fixed(r.cell->host_stall.mean / 1e3, 1) + " µs (" + c.stall + ")";
  };
  // Options that print the same value tie; say how many, so the first is not read as unique.
  auto ties = [](const std::vector<Ranked>& ranked, auto&& shown) {
    std::size_t n = 1;
    while (n < ranked.size() && shown(ranked[n]) == shown(ranked[0])) ++n;
    return n;
  };
  auto peak_text = [](const Ranked& r) { return fixed(r.cell->peak_in_use.mean / kMiB, 2); };
  auto stall_text = [](const Ranked& r) { return fixed(r.cell->host_stall.mean / 1e3, 1); };
  if (const Cell* today = m.guards.empty() ? nullptr : m.cell(kBaselinePolicy, m.guards.front(), sem))
    os << "- Reference, " << option_name(kBaselinePolicy, m.guards.front()) << ": peak in-use "
       << fixed(today->peak_in_use.mean / kMiB, 2) << " MiB, host stall " << fixed(today->host_stall.mean / 1e3, 1)
       << " µs, " << count_spread(today->latent) << " latent and " << count_spread(today->manifest)
       << " manifest races per run.\n";
  const std::size_t peak_ties = ties(by_peak, peak_text), stall_ties = ties(by_stall, stall_text);
  os << "- Lowest peak memory among race-free options: " << describe(by_peak.front());
  if (peak_ties > 1) os << "; " << peak_ties << " options tie at " << peak_text(by_peak.front()) << " MiB, this one stalls least";
  os << ".\n";
  os << "- Least host stall among race-free options: " << describe(by_stall.front());
  if (stall_ties > 1)
    os << "; " << stall_ties << " options tie at " << stall_text(by_stall.front()) << " µs, this one uses least memory";
  os << ".\n";
  std::vector<std::string> pareto;
  for (const auto& a : by_peak) {
    bool dominated = std::any_of(free.begin(), free.end(), [&](const Ranked& b) {
      double ap = a.cell->peak_in_use.mean, as = a.cell->host_stall.mean;
      double bp = b.cell->peak_in_use.mean, bs = b.cell->host_stall.mean;
      return bp <= ap && bs <= as && (bp < ap || bs < as);
    });
    if (!dominated) pareto.push_back(option_name(a.option->policy, a.option->guard));
  }
  os << "- Trade-off frontier (no race-free option has both less peak in-use and less host stall): "
     << join(pareto, ", ") << ".\n\n";
  os << "Race-free options ranked by peak in-use (semaphore " << sem << "):\n\n"
     << ranking_table(m, by_peak, sem, false) << "\n";
  os << "Race-free options ranked by host stall (semaphore " << sem << "):\n\n"
     << ranking_table(m, by_stall, sem, true) << "\n";
  return os.str();
}

std::string sweep_line(const ReportInput& in, const ScenarioModel& m) {
  std::size_t runs = 0;
  for (const auto& r : in.runs) runs += r.scenario == m.name;
  std::vector<std::string> sems;
  for (int s : m.semaphores) sems.push_back(std::to_string(s));
  std::ostringstream os;
  os << runs << " runs: " << m.policies.size() << " policies × " << m.guards.size() << " guards × semaphore capacity {"
     << join(sems, ", ") << "} × " << in.spec.seeds << " seed" << (in.spec.seeds == 1 ? "" : "s");
  if (in.spec.seeds > 1)
    os << " (" << in.spec.base_seed << "–" << seeds::nth(in.spec.base_seed, std::uint64_t(in.spec.seeds - 1))
       << ")";
  else
    os << " (" << in.spec.base_seed << ")";
  std::vector<std::string> sets;
  for (const auto& [k, v] : in.spec.sets) sets.push_back("`" + k + "=" + v + "`");
  if (!sets.empty()) os << "; --set " << join(sets, ", ");
  os << ".\n";
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
  if (has("stall_vs_peak.png"))
    os << "Host stall vs peak in-use at semaphore " << m.reference_semaphore()
       << ": one point per policy (colour) and guard (shape), mean over seeds; circled points had races.\n\n"
       << "![host stall vs peak in-use](stall_vs_peak.png)\n\n";
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
     << "host stall in µs, makespan in ms. `÷ immediate`: peak in-use relative to policy `immediate` with the "
     << "same guard and semaphore.\n\n";
  if (models.empty()) os << "The sweep has no runs.\n";
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& m = models[i];
    const int sem = m.reference_semaphore();
    os << "## Scenario `" << m.name << "`\n\n" << sweep_line(in, m) << "\n" << reference_line(m);
    os << verdict(m);
    os << "### Summary at semaphore " << sem << "\n\n" << summary_table(m, sem) << "\n";
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

}  // namespace allocsim::results
