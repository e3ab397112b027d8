// Grouping and statistics behind the report (see report_model.h).
#include "report_model.h"

#include <algorithm>

namespace allocsim::results::detail {

void Stat::add(double v) {
  if (n == 0 || v < min) min = v;
  if (n == 0 || v > max) max = v;
  sum_ += v;
  ++n;
}
void Stat::finish() { mean = n ? sum_ / n : 0; }

const Cell* ScenarioModel::cell(const std::string& p, const std::string& g, int s) const {
  auto it = cells.find({p, g, s});
  return it == cells.end() ? nullptr : &it->second;
}

const Option* ScenarioModel::option(const std::string& p, const std::string& g) const {
  for (const auto& o : options)
    if (o.policy == p && o.guard == g) return &o;
  return nullptr;
}

std::optional<int> ScenarioModel::identical_from() const {
  auto same = [](const Cell& a, const Cell& b) {
    const auto sa = a.stats(), sb = b.stats();
    for (std::size_t i = 0; i < sa.size(); ++i)
      if (sa[i]->mean != sb[i]->mean || sa[i]->min != sb[i]->min || sa[i]->max != sb[i]->max) return false;
    return a.runs == b.runs && a.racy_runs == b.racy_runs && a.incomplete_runs == b.incomplete_runs;
  };
  std::optional<int> from;
  // Walk down from the largest capacity while each next-smaller one matches it for every option.
  for (std::size_t i = semaphores.size(); i-- > 1;) {
    const int hi = semaphores.back(), lo = semaphores[i - 1];
    bool all = true;
    for (const auto& o : options) {
      const Cell *a = cell(o.policy, o.guard, lo), *b = cell(o.policy, o.guard, hi);
      if (!a || !b || !same(*a, *b)) all = false;
    }
    if (!all) break;
    from = lo;
  }
  return from;
}

namespace {

void add_unique(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

}  // namespace

std::vector<ScenarioModel> build_models(const ReportInput& in) {
  std::vector<ScenarioModel> models;
  auto model_for = [&](const std::string& name) -> ScenarioModel& {
    for (auto& m : models)
      if (m.name == name) return m;
    ScenarioModel m;
    m.name = name;
    m.policies = in.spec.policies;
    m.guards = in.spec.guards;
    models.push_back(std::move(m));
    return models.back();
  };
  for (const auto& r : in.runs) {
    ScenarioModel& m = model_for(r.scenario);
    add_unique(m.policies, r.policy);
    add_unique(m.guards, r.guard);
    if (std::find(m.semaphores.begin(), m.semaphores.end(), r.semaphore) == m.semaphores.end())
      m.semaphores.push_back(r.semaphore);
    m.reference_max_allocated = std::max(m.reference_max_allocated, r.reference_max_allocated);
    m.reference_max_reserved = std::max(m.reference_max_reserved, r.reference_max_reserved);
    Cell& c = m.cells[{r.policy, r.guard, r.semaphore}];
    ++c.runs;
    bool racy = r.races_latent > 0 || r.races_manifest > 0;
    c.racy_runs += racy;
    c.incomplete_runs += !r.completed;
    c.latent.add(double(r.races_latent));
    c.manifest.add(double(r.races_manifest));
    c.peak_in_use.add(double(r.peak_bytes_in_use));
    c.peak_live.add(double(r.peak_live_bytes));
    c.peak_pending.add(double(r.peak_pending_bytes));
    c.peak_pool.add(double(r.peak_pool_bytes));
    c.host_stall.add(double(r.host_stall_ns));
    c.makespan.add(double(r.makespan_ns));
    c.callbacks.add(double(r.callbacks));
    c.ooms.add(double(r.ooms));
    c.fallbacks.add(double(r.fallbacks));
    c.blocked_policy.add(double(r.host_blocked_policy_ns));
    c.blocked_oom.add(double(r.host_blocked_oom_ns));
    c.blocked_semaphore.add(double(r.host_blocked_semaphore_ns));
    c.blocked_sync.add(double(r.host_blocked_sync_ns));
    c.policy_blocked.add(double(r.host_blocked_policy_ns + r.host_blocked_oom_ns));
    c.device_idle.add(double(r.device_idle_ns));
    m.blocking_measured = m.blocking_measured || r.host_blocked_policy_ns || r.host_blocked_oom_ns ||
                          r.host_blocked_semaphore_ns || r.host_blocked_sync_ns;
  }
  // Each point's summary joins the cell of its runs (a summary without runs has no cell to show).
  for (const SampleSummary& s : in.samples)
    for (auto& m : models)
      if (auto it = m.cells.find({s.policy, s.guard, s.semaphore}); m.name == s.scenario && it != m.cells.end())
        it->second.sampled = s;
  for (auto& m : models) {
    m.executions = in.spec.executions;
    m.samples = in.spec.samples;
    std::sort(m.semaphores.begin(), m.semaphores.end());
    for (auto& [key, c] : m.cells)
      for (Stat* s : c.stats()) s->finish();
    for (const auto& p : m.policies)
      for (const auto& g : m.guards) {
        Option o{p, g};
        for (int s : m.semaphores)
          if (const Cell* c = m.cell(p, g, s)) {
            o.runs += c->runs;
            o.racy_runs += c->racy_runs;
            o.incomplete_runs += c->incomplete_runs;
            o.ooms += static_cast<std::uint64_t>(c->ooms.mean * c->ooms.n + 0.5);
          }
        if (o.runs == 0) continue;
        o.race_free = o.racy_runs == 0 && o.incomplete_runs == 0;
        m.options.push_back(o);
      }
  }
  return models;
}

}  // namespace allocsim::results::detail
