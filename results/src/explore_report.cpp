// The explore report: text for the terminal and JSON (explore.h).
#include <cstdio>
#include <sstream>

#include <boost/json.hpp>

#include "allocsim/results/explore.h"

namespace allocsim {
namespace {

const char* host_op_name(HostOpKind k) {
  switch (k) {
    case HostOpKind::Alloc: return "alloc";
    case HostOpKind::Release: return "release";
    case HostOpKind::Kernel: return "kernel";
    case HostOpKind::Memset: return "memset";
    case HostOpKind::Copy: return "copy";
    case HostOpKind::RecordEvent: return "record";
    case HostOpKind::StreamWait: return "wait";
    case HostOpKind::EventSync: return "event_sync";
    case HostOpKind::EventQuery: return "event_query";
    case HostOpKind::StreamSync: return "stream_sync";
    case HostOpKind::DeviceSync: return "device_sync";
    case HostOpKind::BeginExecution: return "begin_execution";
    case HostOpKind::EndExecution: return "end_execution";
    case HostOpKind::HostDelay: return "host_delay";
    case HostOpKind::Shutdown: return "shutdown";
    case HostOpKind::Lock: return "lock";
    case HostOpKind::Unlock: return "unlock";
    case HostOpKind::HostCallback: return "host_callback";
  }
  return "?";
}

std::string ms(TimeNs ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", double(ns) / 1e6);
  return b;
}

}  // namespace

std::string describe_step(const StepRef& s, const Program& p) {
  std::string d = describe(locator_of(s, p));
  if (s.agent == StepAgent::Host && s.index < p.ops.size()) {
    const HostOp& op = p.ops[s.index];
    d += std::string(" (") + host_op_name(op.kind);
    if (op.buffer >= 0 && std::size_t(op.buffer) < p.buffer_names.size()) d += " " + p.buffer_names[std::size_t(op.buffer)];
    if (op.source_line) d += ", line " + std::to_string(op.source_line);
    d += ")";
  }
  if (s.agent == StepAgent::Stream) {
    // The op's label: the (index)-th device op the program launches on that stream.
    std::uint64_t seen = 0;
    for (const HostOp& op : p.ops) {
      const bool device = op.kind == HostOpKind::Kernel || op.kind == HostOpKind::Memset || op.kind == HostOpKind::Copy;
      if (!device || op.stream != s.stream) continue;
      if (seen++ == s.index) {
        d += std::string(" (") + host_op_name(op.kind) + (op.source_line ? ", line " + std::to_string(op.source_line) : "") + ")";
        break;
      }
    }
  }
  return d;
}

std::string format_holds(const std::vector<StepHold>& holds, const std::vector<HoldOutcome>& outcomes,
                         const Program& program) {
  std::string o;
  for (std::size_t i = 0; i < holds.size(); ++i) {
    o += "  hold " + describe_step(holds[i].hold, program) + " until " + describe_step(holds[i].until, program);
    if (i < outcomes.size()) {
      const HoldOutcome& h = outcomes[i];
      if (!h.reached) o += "  (never reached)";
      else if (!h.waited) o += "  (already done: no wait)";
      else o += "  (held " + ms(h.held_ns) + (h.quiescence ? ", until nothing else could run" : "") + ")";
    }
    o += "\n";
  }
  return o;
}

Schedule schedule_file_of(const ExploreReport& r, const ExploredSchedule& w, const std::string& scenario,
                          const std::map<std::string, std::string>& sets, const Program& program) {
  Schedule s;
  s.scenario = scenario;
  s.policy = r.policy, s.guard = r.guard, s.semaphore = r.semaphore, s.seed = r.seed;
  s.set = sets;
  for (std::size_t i = 0; i < w.delays.size(); ++i) {
    Delay d{locator_of(w.delays[i].hold, program), locator_of(w.delays[i].until, program), std::nullopt};
    if (i < w.holds.size() && w.holds[i].waited) d.held_ns = w.holds[i].held_ns;
    s.delays.push_back(std::move(d));
  }
  s.outcome_json = boost::json::serialize(boost::json::object{{"verdict", verdict_name(w.verdict)}, {"finding", w.detail}});
  return s;
}

std::string format_explore(const ExploreReport& r, const Program& program) {
  std::ostringstream o;
  o << "scenario  " << r.scenario << "  policy " << r.policy << "  guard " << r.guard << "  semaphore "
    << r.semaphore << "  seed " << r.seed << "\n";
  o << "bound     " << r.options.bound << " delays (a delay holds one step until another agent's step is done)"
    << (r.options.prune ? "" : "; no pruning") << "\n";
  o << "levels   ";
  for (const ExploreLevel& l : r.levels)
    o << " " << l.delays << ":" << l.schedules;
  o << "  (delays: schedules)\n";
  std::uint64_t pruned = 0, dup = 0;
  for (const ExploreLevel& l : r.levels) pruned += l.candidates_pruned, dup += l.duplicates;
  o << "explored  " << r.schedules << " schedules, " << r.distinct_outcomes << " distinct outcomes; pruned "
    << pruned << " delays that only reorder independent steps, skipped " << dup << " delay sets reached twice\n";
  char plain[64];
  std::snprintf(plain, sizeof plain, "%.3g", r.plain_estimate);
  o << "plain     the timed run offers " << r.feasible_delays_timed << " feasible delays, "
    << r.conflicting_delays_timed << " of them between conflicting steps; plain enumeration up to the bound: ~"
    << plain << " schedules\n";
  o << "outcomes ";
  for (std::size_t v = 0; v < 5; ++v)
    if (r.by_verdict[v]) o << " " << verdict_name(ScheduleVerdict(v)) << " " << r.by_verdict[v] << ";";
  o << "\n";
  {
    std::size_t reached = 0;
    std::string timed;
    for (std::size_t e = 0; e < r.fewest_delays_to_corrupt.size(); ++e) {
      if (r.fewest_delays_to_corrupt[e] >= 0) ++reached;
      if (r.fewest_delays_to_corrupt[e] == 0) timed += (timed.empty() ? "" : ",") + std::to_string(e);
    }
    if (reached) {
      o << "corrupted " << reached << " of " << r.fewest_delays_to_corrupt.size()
        << " executions by a manifest race in some explored schedule (the timed run: " << (timed.empty() ? "none" : timed)
        << "); fewest delays per execution:";
      for (int d : r.fewest_delays_to_corrupt) o << " " << (d < 0 ? std::string("-") : std::to_string(d));
      o << "\n";
    }
  }
  o << "verdict   " << r.verdict_line() << "\n";
  if (const ExploredSchedule* w = r.witness()) {
    o << "witness   " << verdict_name(w->verdict) << "\n";
    o << format_holds(w->delays, w->holds, program);
    if (!w->detail.empty()) o << "  " << w->detail << "\n";
  }
  return o.str();
}

boost::json::object explore_to_json(const ExploreReport& r, const Program& program) {
  boost::json::object o;
  o["scenario"] = r.scenario, o["policy"] = r.policy, o["guard"] = r.guard;
  o["semaphore"] = r.semaphore, o["seed"] = r.seed;
  o["bound"] = r.options.bound, o["prune"] = r.options.prune;
  boost::json::array levels;
  for (const ExploreLevel& l : r.levels)
    levels.push_back(boost::json::object{{"delays", l.delays},
                                         {"schedules", l.schedules},
                                         {"delays_pruned", l.candidates_pruned},
                                         {"duplicates", l.duplicates}});
  o["levels"] = std::move(levels);
  o["schedules"] = r.schedules;
  o["distinct_outcomes"] = r.distinct_outcomes;
  boost::json::object by;
  for (std::size_t v = 0; v < 5; ++v) by[std::string(verdict_name(ScheduleVerdict(v)))] = r.by_verdict[v];
  o["by_verdict"] = std::move(by);
  o["feasible_delays_timed"] = r.feasible_delays_timed;
  o["conflicting_delays_timed"] = r.conflicting_delays_timed;
  o["plain_estimate"] = r.plain_estimate;
  o["complete"] = r.complete;
  o["verdict"] = r.verdict_line();
  if (r.options.execution >= 0) o["execution"] = r.options.execution;
  boost::json::array fewest;
  for (int d : r.fewest_delays_to_corrupt) fewest.push_back(d);
  o["fewest_delays_to_corrupt_by_execution"] = std::move(fewest);
  boost::json::array firsts;
  for (const ExploredSchedule& s : r.firsts) {
    boost::json::array delays;
    for (std::size_t i = 0; i < s.delays.size(); ++i) {
      boost::json::object d{{"hold", describe_step(s.delays[i].hold, program)},
                            {"until", describe_step(s.delays[i].until, program)}};
      if (i < s.holds.size()) d["held_ns"] = s.holds[i].held_ns;
      delays.push_back(std::move(d));
    }
    firsts.push_back(boost::json::object{{"verdict", verdict_name(s.verdict)}, {"delays", std::move(delays)}, {"detail", s.detail}});
  }
  o["first_of_each_verdict"] = std::move(firsts);
  return o;
}

}  // namespace allocsim
