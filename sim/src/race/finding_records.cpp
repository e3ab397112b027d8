// Raw findings -> Finding records (core/result.h) and their readable two-line form.
// Done at finish() so release/free times and op spans that arrive after detection are included.
#include <cstdio>
#include <string>

#include "detector_state.h"

namespace allocsim {
namespace race {

std::string DetectorState::agent_name(AgentId a) const {
  if (a == kHostAgent) return "host";
  if (a == kCallbackAgent) return "callback-thread";
  if (a < 0) return "?";
  StreamId s = a - stream_agent(0);
  if (std::size_t(s) < stream_names.size() && !stream_names[std::size_t(s)].empty()) return stream_names[std::size_t(s)];
  return "stream" + std::to_string(s);
}

namespace {

std::string stream_name(const DetectorState& d, StreamId s) {
  return s == kNoStream ? std::string("?") : d.agent_name(stream_agent(s));
}

FindingSide side(const DetectorState& d, std::int32_t inst, const AccessRec& acc) {
  FindingSide s;
  const AllocRec& ar = d.allocs[std::size_t(inst)];
  s.alloc = ar.buffer;
  s.alloc_bytes = ar.requested ? ar.requested : ar.chunk.bytes;
  s.alloc_stream = stream_name(d, ar.stream);
  s.alloc_time = ar.alloc_time;
  s.release_time = ar.release_time;
  s.write = acc.write;
  s.stream = d.agent_name(acc.agent);
  s.start = s.end = acc.t;
  if (acc.agent == kHostAgent) {
    s.op = "host";
  } else if (auto sp = d.spans.find(acc.op_seq)) {
    s.op = std::string(sp->label);
    s.start = sp->start;
    s.end = sp->end;
  } else {
    s.op = acc.write ? "write" : "read";
  }
  return s;
}

std::string free_story(const DetectorState& d, std::int32_t inst, std::string_view policy) {
  const AllocRec& ar = d.allocs[std::size_t(inst)];
  std::string who = "buffer " + std::to_string(ar.buffer);
  if (ar.freed)
    return "pool free of " + who + " by " + d.agent_name(ar.free_agent) + " at t=" + std::to_string(ar.free_time) +
           " (policy " + (policy.empty() ? std::string("?") : std::string(policy)) + ")";
  if (d.hot[std::size_t(inst)].released) return who + " released by the host at t=" + std::to_string(ar.release_time) + ", never returned to the pool";
  return who + " still held by the host (no free between)";
}

std::string alloc_story(const DetectorState& d, std::int32_t inst) {
  const AllocRec& ar = d.allocs[std::size_t(inst)];
  return "buffer " + std::to_string(ar.buffer) + " allocated for " + stream_name(d, ar.stream) + " at t=" +
         std::to_string(ar.alloc_time);
}

}  // namespace

std::vector<Finding> DetectorState::records(std::string_view policy) const {
  std::vector<Finding> out;
  out.reserve(raw.size());
  for (const RawFinding& r : raw) {
    Finding f;
    f.kind = r.kind;
    f.range = r.range;
    f.first = side(*this, r.alloc_a, r.a);
    f.second = side(*this, r.alloc_b, r.b);
    if (r.kind == FindingKind::Latent) {
      f.action_between = free_story(*this, r.alloc_a, policy) + "; then " + alloc_story(*this, r.alloc_b);
    } else {
      std::string victim = "buffer " + std::to_string(f.first.alloc), other = "buffer " + std::to_string(f.second.alloc);
      f.action_between = victim + " wrote at t=" + std::to_string(r.victim_write.t) + "; " +
                         free_story(*this, r.alloc_a, policy) + "; " + other + " overwrote at t=" +
                         std::to_string(r.b.t) + "; " + victim + " read at t=" + std::to_string(r.a.t);
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace race

namespace {
std::string describe(const FindingSide& s) {
  std::string out = "buffer " + std::to_string(s.alloc) + " (" + std::to_string(s.alloc_bytes) + " B, " + s.alloc_stream +
                    ", alloc t=" + std::to_string(s.alloc_time);
  if (s.release_time >= 0) out += ", released t=" + std::to_string(s.release_time);
  out += ")";
  if (!s.op.empty())
    out += " " + s.op + (s.write ? " write" : " read") + " on " + s.stream + " [" + std::to_string(s.start) + ", " +
           std::to_string(s.end) + "]";
  return out;
}
}  // namespace

std::string format_finding(const Finding& f) {
  char range[64];
  std::snprintf(range, sizeof range, "[0x%llx, +%llu)", static_cast<unsigned long long>(f.range.begin),
                static_cast<unsigned long long>(f.range.bytes));
  std::string line1 = std::string(finding_kind_name(f.kind)) + " " + range + ": " + describe(f.first);
  if (f.second.alloc >= 0 || !f.second.op.empty()) line1 += "  vs  " + describe(f.second);
  return line1 + "\n    " + f.action_between;
}

}  // namespace allocsim
