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
  }
  return "?";
}

std::string stream_name(StreamId s, const Program& p) {
  return s >= 0 && std::size_t(s) < p.streams.size() ? p.streams[std::size_t(s)].name : "stream" + std::to_string(s);
}

std::string ms(TimeNs ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", double(ns) / 1e6);
  return b;
}

boost::json::object step_json(const StepRef& s, const Program& p) {
  boost::json::object o;
  switch (s.agent) {
    case StepAgent::Host:
      o["agent"] = "host", o["op"] = s.index;
      break;
    case StepAgent::Stream:
      o["agent"] = "stream", o["stream"] = stream_name(s.stream, p), o["op"] = s.index;
      break;
    case StepAgent::Callback:
      o["agent"] = "callback", o["callback"] = s.index;
      break;
  }
  return o;
}

}  // namespace

std::string describe_step(const StepRef& s, const Program& p) {
  switch (s.agent) {
    case StepAgent::Host: {
      std::string d = "host op " + std::to_string(s.index);
      if (s.index < p.ops.size()) {
        const HostOp& op = p.ops[s.index];
        d += std::string(" (") + host_op_name(op.kind);
        if (op.buffer >= 0 && std::size_t(op.buffer) < p.buffer_names.size()) d += " " + p.buffer_names[std::size_t(op.buffer)];
        if (op.source_line) d += ", line " + std::to_string(op.source_line);
        d += ")";
      }
      return d;
    }
    case StepAgent::Stream:
      return "stream " + stream_name(s.stream, p) + " op " + std::to_string(s.index);
    case StepAgent::Callback:
      return "callback " + std::to_string(s.index);
  }
  return "?";
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
  o << "verdict   " << r.verdict_line() << "\n";
  if (const ExploredSchedule* w = r.witness()) {
    o << "witness   " << verdict_name(w->verdict) << "\n";
    for (std::size_t i = 0; i < w->delays.size(); ++i) {
      o << "  hold " << describe_step(w->delays[i].hold, program) << " until " << describe_step(w->delays[i].until, program);
      if (i < w->holds.size()) {
        const HoldOutcome& h = w->holds[i];
        if (!h.reached) o << "  (never reached)";
        else if (!h.waited) o << "  (already done: no wait)";
        else o << "  (held " << ms(h.held_ns) << (h.quiescence ? ", until nothing else could run" : "") << ")";
      }
      o << "\n";
    }
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
  boost::json::array firsts;
  for (const ExploredSchedule& s : r.firsts) {
    boost::json::array delays;
    for (std::size_t i = 0; i < s.delays.size(); ++i) {
      boost::json::object d{{"hold", step_json(s.delays[i].hold, program)}, {"until", step_json(s.delays[i].until, program)}};
      if (i < s.holds.size()) d["held_ns"] = s.holds[i].held_ns;
      delays.push_back(std::move(d));
    }
    firsts.push_back(boost::json::object{{"verdict", verdict_name(s.verdict)}, {"delays", std::move(delays)}, {"detail", s.detail}});
  }
  o["first_of_each_verdict"] = std::move(firsts);
  return o;
}

}  // namespace allocsim
