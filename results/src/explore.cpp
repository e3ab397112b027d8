// See explore.h: the level-by-level search.
#include "allocsim/results/explore.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_set>

#include "allocsim/engine/execution_units.h"
#include "allocsim/results/run_summary.h"
#include "allocsim/results/runner.h"
#include "explore_delays.h"
#include "explore_wire.h"

namespace allocsim {
namespace {

using explore_detail::delays_of;
using explore_detail::Played;
using explore_detail::position_of;
using explore_detail::ScheduleJob;

ScheduleVerdict verdict_of(const RunResult& r) {
  if (!r.completed) return r.error.rfind("deadlock", 0) == 0 ? ScheduleVerdict::Deadlock : ScheduleVerdict::Stopped;
  if (r.races_manifest) return ScheduleVerdict::Manifest;
  if (r.races_latent) return ScheduleVerdict::Latent;
  return ScheduleVerdict::Clean;
}

// What tells two outcomes apart: the verdict, the deadlock's blocked agents (not its time), and
// each race finding's kind and buffers (not its time or address).
std::string signature_of(const RunResult& r, ScheduleVerdict v, const Program& program) {
  auto name = [&](BufferId b) {
    return b >= 0 && std::size_t(b) < program.buffer_names.size() ? program.buffer_names[std::size_t(b)] : "?";
  };
  std::string s(verdict_name(v));
  if (!r.completed) {
    const std::size_t at = r.error.find("ns: ");
    s += "|" + (at == std::string::npos ? r.error : r.error.substr(at + 4));
  }
  std::vector<std::string> races;
  for (const Finding& f : r.findings)
    if (f.kind == FindingKind::Latent || f.kind == FindingKind::Manifest)
      races.push_back(std::string(finding_kind_name(f.kind)) + ":" + name(f.first.alloc) + "/" + name(f.second.alloc));
  std::sort(races.begin(), races.end());
  races.erase(std::unique(races.begin(), races.end()), races.end());
  for (const std::string& x : races) s += "|" + x;
  return s;
}

std::string detail_of(const RunResult& r, const Program& program) {
  if (!r.completed) return r.error;
  for (const FindingKind k : {FindingKind::Manifest, FindingKind::Latent})
    for (const Finding& f : r.findings)
      if (f.kind == k) return format_finding(f, &program);
  return "";
}

std::string key_of(std::vector<StepHold> d) {
  std::sort(d.begin(), d.end(), [](const StepHold& x, const StepHold& y) {
    return std::tie(x.hold, x.until) < std::tie(y.hold, y.until);
  });
  std::string k;
  for (const StepHold& h : d)
    for (const StepRef& r : {h.hold, h.until})
      k += std::to_string(int(r.agent)) + "," + std::to_string(r.stream) + "," + std::to_string(r.index) + ";";
  return k;
}

Played play(const Scenario& scenario, const ExecutionUnits& units, const RunConfig& config,
            const std::vector<StepHold>& delays, bool expand, bool prune) {
  Played p;
  p.schedule.delays = delays;
  StepTrace trace;
  const RunResult r = run_one(scenario, config, {}, [&](SimOptions& o) {
    o.holds = delays;
    if (expand) o.trace = &trace;  // the last level adds no delay: its steps need no trace
    o.hold_outcomes = &p.schedule.holds;
    o.max_findings = std::size_t(1) << 30;  // every manifest finding, to attribute each to its execution
  });
  for (int e : manifest_units(units, r.findings)) p.schedule.manifest_executions.push_back(e);
  p.schedule.verdict = verdict_of(r);
  p.schedule.signature = signature_of(r, p.schedule.verdict, scenario.program);
  p.schedule.detail = detail_of(r, scenario.program);
  if (!expand) return p;
  // Delays are added in trace order: the new one holds a step no earlier than the last one did,
  // so a set of delays is reached once, not once per order (a set reached anyway is skipped).
  const std::size_t from = delays.empty() ? 0 : position_of(trace, delays.back().hold);
  explore_detail::DelayChoices c = delays_of(trace, from, prune);
  p.pruned = c.feasible - c.kept.size();
  for (const StepHold& h : c.kept) {
    if (std::find(delays.begin(), delays.end(), h) != delays.end()) continue;
    std::vector<StepHold> child = delays;
    child.push_back(h);
    p.children.push_back(std::move(child));
  }
  return p;
}

/// A schedule as a failed job's name: "hold X until Y; hold ...".
std::string describe_schedule(const std::vector<StepHold>& delays, const Program& program) {
  if (delays.empty()) return "the timed schedule, no delay";
  std::string d;
  for (const StepHold& h : delays)
    d += (d.empty() ? "hold " : "; hold ") + describe_step(h.hold, program) + " until " +
         describe_step(h.until, program);
  return d;
}

bool exact_holds(const ExploredSchedule& s) {
  return std::none_of(s.holds.begin(), s.holds.end(), [](const HoldOutcome& h) { return h.quiescence; });
}

/// What `allocsim-hw validate --schedule` can force: holds that end at their `until` step, of
/// and until host ops and device ops (a callback's place in the callback thread is not ours to
/// gate there).
bool forceable(const ExploredSchedule& s) {
  return exact_holds(s) && std::none_of(s.delays.begin(), s.delays.end(), [](const StepHold& h) {
           return h.hold.agent == StepAgent::Callback || h.until.agent == StepAgent::Callback;
         });
}

double sets_up_to(std::uint64_t n, int k) {
  double total = 0, term = 1;  // C(n, 0)
  for (int j = 0; j <= k; ++j) {
    total += term;
    term = term * double(n > std::uint64_t(j) ? n - std::uint64_t(j) : 0) / double(j + 1);
  }
  return total;
}

}  // namespace

std::string_view verdict_name(ScheduleVerdict v) {
  switch (v) {
    case ScheduleVerdict::Deadlock: return "deadlock";
    case ScheduleVerdict::Manifest: return "manifest race";
    case ScheduleVerdict::Latent: return "latent race";
    case ScheduleVerdict::Stopped: return "stopped";
    case ScheduleVerdict::Clean: return "clean";
  }
  return "?";
}

const ExploredSchedule* ExploreReport::witness() const {
  if (options.execution >= 0) {
    for (const ExploredSchedule& s : firsts)
      if (s.verdict == ScheduleVerdict::Deadlock) return &s;
    return execution_witness ? &*execution_witness : nullptr;
  }
  for (const ExploredSchedule& s : firsts)
    if (s.verdict == ScheduleVerdict::Deadlock || s.verdict == ScheduleVerdict::Manifest ||
        s.verdict == ScheduleVerdict::Latent)
      return &s;
  return nullptr;
}

std::string ExploreReport::verdict_line() const {
  const std::string n = std::to_string(schedules) + " schedule" + (schedules == 1 ? "" : "s");
  const std::string k = std::to_string(options.bound);
  if (const ExploredSchedule* w = witness())
    return std::string(verdict_name(w->verdict)) +
           (options.execution >= 0 && w->verdict == ScheduleVerdict::Manifest
                ? " in execution " + std::to_string(options.execution)
                : "") +
           " found with " + std::to_string(w->delays.size()) + " delay" +
           (w->delays.size() == 1 ? "" : "s") + " (" + n + " explored)";
  if (options.execution >= 0)
    return "no schedule up to " + k + " delays corrupts execution " + std::to_string(options.execution) + " (" + n +
           (complete ? "" : "; incomplete: --max-schedules") + ")";
  if (!complete) return "incomplete: stopped after " + n + " (--max-schedules) before covering " + k + " delays";
  if (by_verdict[std::size_t(ScheduleVerdict::Stopped)])
    return "no race or deadlock up to " + k + " delays, but " +
           std::to_string(by_verdict[std::size_t(ScheduleVerdict::Stopped)]) + " schedule(s) stopped early (" + n + ")";
  return "race-free and deadlock-free up to " + k + " delays (" + n + ")";
}

ExploreReport explore(const Scenario& scenario, const RunConfig& config, const ExploreOptions& options,
                      const ExploreProgress& make_progress, results::JobFarm* farm) {
  if (options.bound < 0 || options.bound > 8) throw RunInputError("--bound must be between 0 and 8");
  std::unique_ptr<results::JobFarm> own_farm;
  if (!farm) {
    own_farm = results::make_thread_farm(options.jobs > 0 ? unsigned(options.jobs) : 0);
    farm = own_farm.get();
  }
  const ExecutionUnits units = execution_units(scenario.program);
  if (options.execution >= units.units)  // on every rank: each exits 2, none waits for jobs
    throw RunInputError("--execution " + std::to_string(options.execution) + ": the program has " +
                        std::to_string(units.units) + " execution(s), numbered from 0");
  check_run_config(scenario, config);  // a bad policy or guard, on every rank too
  // Every rank has loaded the same scenario and configuration, so a job is just its delays.
  const results::JobHandler play_job = [&](std::size_t, const std::string& input) {
    const ScheduleJob job = explore_detail::decode_job(input);
    return explore_detail::encode_played(
        play(scenario, units, config, job.delays, job.expand, options.prune));
  };
  ExploreReport rep;
  rep.options = options;
  if (!farm->is_collector()) {  // the collector decides the levels; this rank plays what it is sent
    farm->serve(play_job);
    rep.collector = false;
    return rep;
  }

  {  // the timed run: names, and the size of plain enumeration
    StepTrace trace;
    const RunResult r = run_one(scenario, config, {}, [&](SimOptions& o) { o.trace = &trace; });
    rep.scenario = r.scenario, rep.policy = r.policy, rep.guard = r.guard;
    rep.semaphore = r.semaphore, rep.seed = r.seed;
    const explore_detail::DelayChoices plain = delays_of(trace, 0, false);
    const explore_detail::DelayChoices kept = delays_of(trace, 0, true);
    rep.feasible_delays_timed = plain.feasible;
    rep.conflicting_delays_timed = kept.kept.size();
    rep.plain_estimate = sets_up_to(plain.feasible, options.bound);
  }

  rep.fewest_delays_to_corrupt.assign(std::size_t(units.units), -1);
  std::vector<std::vector<StepHold>> level{{}};
  std::unordered_set<std::string> seen{key_of({})};
  std::set<std::string> outcomes;
  std::map<ScheduleVerdict, std::optional<ExploredSchedule>> firsts;
  for (int k = 0; k <= options.bound && !level.empty(); ++k) {
    if (options.max_schedules && rep.schedules + level.size() > options.max_schedules) {
      rep.complete = false;
      break;
    }
    const bool expand = k < options.bound;
    const std::unique_ptr<results::ProgressMeter> progress = make_progress ? make_progress(k, level.size()) : nullptr;
    std::vector<Played> played(level.size());
    results::FarmRun run;
    run.todo.resize(level.size());
    std::iota(run.todo.begin(), run.todo.end(), std::size_t(0));
    run.input = [&](std::size_t i) { return explore_detail::encode_job({level[i], expand}); };
    run.progress = progress.get();
    // Each payload lands in its schedule's slot: the level is read in order below, whichever rank
    // or thread played what.
    const std::vector<results::JobFailure> failures =
        farm->run(run, play_job, [&](std::size_t i, std::string&& payload) {
          played[i] = explore_detail::decode_played(payload);
        });
    if (progress) progress->finish();
    if (!failures.empty()) {  // a schedule that cannot be played is bad input, named in the message
      std::string named = results::format_failures(
          failures, [&](std::size_t i) { return describe_schedule(level[i], scenario.program); });
      named.pop_back();  // main() ends the message's last line
      throw RunInputError(std::to_string(failures.size()) + " of " + std::to_string(level.size()) +
                          " schedules with " + std::to_string(k) + " delay(s) failed:\n" + named);
    }

    ExploreLevel lv;
    lv.delays = k;
    std::vector<std::vector<StepHold>> next_level;
    for (Played& p : played) {
      ++lv.schedules;
      lv.candidates_pruned += p.pruned;
      ++rep.by_verdict[std::size_t(p.schedule.verdict)];
      outcomes.insert(p.schedule.signature);
      for (int e : p.schedule.manifest_executions)
        if (rep.fewest_delays_to_corrupt[std::size_t(e)] < 0) rep.fewest_delays_to_corrupt[std::size_t(e)] = k;
      // The first schedule of its kind at the lowest level, preferring one whose holds all ended
      // at their `until` step: a hold that ran until nothing else could happen is a delay of no
      // set length, which the GPU cannot force exactly (docs/explore.md).
      auto better = [&](const std::optional<ExploredSchedule>& have) {
        return !have || (!exact_holds(*have) && exact_holds(p.schedule) && have->delays.size() == p.schedule.delays.size());
      };
      if (options.execution >= 0 && better(rep.execution_witness) && (!options.forceable || forceable(p.schedule)) &&
          std::binary_search(p.schedule.manifest_executions.begin(), p.schedule.manifest_executions.end(), options.execution))
        rep.execution_witness = p.schedule;
      std::optional<ExploredSchedule>& first = firsts[p.schedule.verdict];
      if (better(first) && (!options.forceable || forceable(p.schedule) || p.schedule.verdict == ScheduleVerdict::Clean))
        first = p.schedule;
      for (std::vector<StepHold>& c : p.children) {
        if (seen.insert(key_of(c)).second) next_level.push_back(std::move(c));
        else ++lv.duplicates;
      }
    }
    rep.schedules += lv.schedules;
    rep.levels.push_back(lv);
    // A deadlock or a manifest race (in the execution asked for) at this level is a minimal-delay
    // witness: no need to go deeper.
    auto found = [&](ScheduleVerdict v) { return firsts.count(v) && firsts[v].has_value(); };
    const bool manifest = options.execution >= 0 ? rep.execution_witness.has_value() : found(ScheduleVerdict::Manifest);
    if (found(ScheduleVerdict::Deadlock) || manifest) {
      rep.stopped_at_level = k;
      break;
    }
    level = std::move(next_level);
  }
  rep.distinct_outcomes = outcomes.size();
  for (auto& [v, s] : firsts)
    if (s) rep.firsts.push_back(std::move(*s));
  return rep;
}

}  // namespace allocsim
