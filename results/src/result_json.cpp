// Serialisation of RunResult (see header for the layout). Integers stay integers (uint64/int64),
// so byte counts and nanoseconds survive exactly.
#include "allocsim/results/result_json.h"

#include <boost/json.hpp>
#include <functional>
#include <sstream>

namespace allocsim {

namespace {

std::string buffer_name(const Program* program, BufferId id) {
  if (!program || id < 0 || std::size_t(id) >= program->buffer_names.size()) return {};
  return program->buffer_names[std::size_t(id)];
}

boost::json::object side_to_json(const FindingSide& s, const Program* program) {
  boost::json::object o;
  o["alloc"] = s.alloc;
  std::string name = buffer_name(program, s.alloc);
  if (!name.empty()) o["buffer"] = name;
  o["alloc_bytes"] = s.alloc_bytes;
  o["alloc_stream"] = s.alloc_stream;
  o["alloc_time_ns"] = s.alloc_time;
  o["release_time_ns"] = s.release_time;
  o["op"] = s.op;
  o["stream"] = s.stream;
  o["write"] = s.write;
  o["start_ns"] = s.start;
  o["end_ns"] = s.end;
  return o;
}

boost::json::object finding_to_json(const Finding& f, const Program* program) {
  boost::json::object o;
  o["kind"] = std::string(finding_kind_name(f.kind));
  o["range"] = boost::json::object{{"begin", f.range.begin}, {"bytes", f.range.bytes}};
  o["first"] = side_to_json(f.first, program);
  o["second"] = side_to_json(f.second, program);
  o["action_between"] = f.action_between;
  return o;
}

// One column: dotted name + how to read it from a RunResult. The first 18 are DESIGN.md section 6
// in contract order; the rest are extras (append only, so a reader of older columns still finds them).
struct Column {
  std::string name;
  std::function<std::string(const RunResult&)> get;
};

template <class T>
std::string num(T v) { return std::to_string(v); }

Column count_column(FindingKind k) {
  return {"races." + std::string(kFindingKindNames[std::size_t(k)].count_key),
          [k](const RunResult& r) { return num(r.count(k)); }};
}

const std::vector<Column>& columns() {
  static const std::vector<Column> cols = {
      {"scenario", [](const RunResult& r) { return r.scenario; }},
      {"policy", [](const RunResult& r) { return r.policy; }},
      {"guard", [](const RunResult& r) { return r.guard; }},
      {"semaphore", [](const RunResult& r) { return num(r.semaphore); }},
      {"seed", [](const RunResult& r) { return num(r.seed); }},
      count_column(FindingKind::Latent),
      count_column(FindingKind::Manifest),
      {"memory.peak_bytes_in_use", [](const RunResult& r) { return num(r.peak_bytes_in_use); }},
      {"memory.peak_live_bytes", [](const RunResult& r) { return num(r.peak_live_bytes); }},
      {"memory.peak_pending_bytes", [](const RunResult& r) { return num(r.peak_pending_bytes); }},
      {"memory.peak_pool_bytes", [](const RunResult& r) { return num(r.peak_pool_bytes); }},
      {"time.makespan_ns", [](const RunResult& r) { return num(r.makespan_ns); }},
      {"time.host_stall_ns", [](const RunResult& r) { return num(r.host_stall_ns); }},
      {"counts.allocs", [](const RunResult& r) { return num(r.allocs); }},
      {"counts.frees", [](const RunResult& r) { return num(r.frees); }},
      {"counts.callbacks", [](const RunResult& r) { return num(r.callbacks); }},
      {"counts.ooms", [](const RunResult& r) { return num(r.ooms); }},
      {"counts.fallbacks", [](const RunResult& r) { return num(r.fallbacks); }},
      // extras
      {"completed", [](const RunResult& r) { return std::string(r.completed ? "true" : "false"); }},
      {"race_detection", [](const RunResult& r) { return std::string(r.race_detection ? "true" : "false"); }},
      count_column(FindingKind::DoubleFree),
      count_column(FindingKind::UseAfterRelease),
      count_column(FindingKind::UnknownFree),
      count_column(FindingKind::CallbackAfterPoolDestroyed),
      count_column(FindingKind::Leak),
      {"memory.peak_in_use_time_ns", [](const RunResult& r) { return num(r.peak_in_use_time); }},
      {"memory.peak_live_time_ns", [](const RunResult& r) { return num(r.peak_live_time); }},
      {"memory.peak_pending_time_ns", [](const RunResult& r) { return num(r.peak_pending_time); }},
      {"memory.peak_pool_time_ns", [](const RunResult& r) { return num(r.peak_pool_time); }},
      {"warnings", [](const RunResult& r) { return num(r.warnings.size()); }},
      {"error", [](const RunResult& r) { return r.error; }},
      {"reference.max_memory_allocated", [](const RunResult& r) { return num(r.reference_max_allocated); }},
      {"reference.max_memory_reserved", [](const RunResult& r) { return num(r.reference_max_reserved); }},
      {"time.host_blocked_policy_ns", [](const RunResult& r) { return num(r.host_blocked_policy_ns); }},
      {"time.host_blocked_semaphore_ns", [](const RunResult& r) { return num(r.host_blocked_semaphore_ns); }},
      {"time.host_blocked_oom_ns", [](const RunResult& r) { return num(r.host_blocked_oom_ns); }},
      {"time.host_blocked_sync_ns", [](const RunResult& r) { return num(r.host_blocked_sync_ns); }},
      {"time.device_idle_ns", [](const RunResult& r) { return num(r.device_idle_ns); }},
      {"time.host_release_ns", [](const RunResult& r) { return num(r.host_release_ns); }},
      {"counts.releases", [](const RunResult& r) { return num(r.releases); }},
  };
  return cols;
}

void pretty(const boost::json::value& v, int indent, std::string& out) {
  const std::string pad(std::size_t(indent + 2), ' ');
  if (v.is_object()) {
    const auto& o = v.get_object();
    if (o.empty()) { out += "{}"; return; }
    out += "{\n";
    bool first = true;
    for (const auto& kv : o) {
      if (!first) out += ",\n";
      first = false;
      out += pad + boost::json::serialize(boost::json::value(kv.key())) + ": ";
      pretty(kv.value(), indent + 2, out);
    }
    out += "\n" + std::string(std::size_t(indent), ' ') + "}";
  } else if (v.is_array()) {
    const auto& a = v.get_array();
    if (a.empty()) { out += "[]"; return; }
    out += "[\n";
    bool first = true;
    for (const auto& e : a) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      pretty(e, indent + 2, out);
    }
    out += "\n" + std::string(std::size_t(indent), ' ') + "]";
  } else {
    out += boost::json::serialize(v);
  }
}

}  // namespace

boost::json::object result_to_json(const RunResult& r, const Program* program) {
  boost::json::object o;
  o["scenario"] = r.scenario;
  o["policy"] = r.policy;
  o["guard"] = r.guard;
  o["semaphore"] = r.semaphore;
  o["seed"] = r.seed;
  o["completed"] = r.completed;
  o["error"] = r.error;
  o["race_detection"] = r.race_detection;
  boost::json::object races;
  for (const FindingKindNames& k : kFindingKindNames)
    races[boost::json::string_view(k.count_key.data(), k.count_key.size())] = r.count(k.kind);
  o["races"] = std::move(races);
  o["memory"] = boost::json::object{
      {"peak_bytes_in_use", r.peak_bytes_in_use},
      {"peak_live_bytes", r.peak_live_bytes},
      {"peak_pending_bytes", r.peak_pending_bytes},
      {"peak_pool_bytes", r.peak_pool_bytes},
      {"peak_in_use_time_ns", r.peak_in_use_time},
      {"peak_live_time_ns", r.peak_live_time},
      {"peak_pending_time_ns", r.peak_pending_time},
      {"peak_pool_time_ns", r.peak_pool_time},
  };
  o["time"] = boost::json::object{
      {"makespan_ns", r.makespan_ns},
      {"host_stall_ns", r.host_stall_ns},
      {"host_blocked_policy_ns", r.host_blocked_policy_ns},
      {"host_blocked_semaphore_ns", r.host_blocked_semaphore_ns},
      {"host_blocked_oom_ns", r.host_blocked_oom_ns},
      {"host_blocked_sync_ns", r.host_blocked_sync_ns},
      {"device_idle_ns", r.device_idle_ns},
      {"host_release_ns", r.host_release_ns},
  };
  o["counts"] = boost::json::object{
      {"allocs", r.allocs},
      {"frees", r.frees},
      {"callbacks", r.callbacks},
      {"ooms", r.ooms},
      {"fallbacks", r.fallbacks},
      {"releases", r.releases},
  };
  // PyTorch traces: the trace's own figures (0 = the scenario has none)
  o["reference"] = boost::json::object{
      {"max_memory_allocated", r.reference_max_allocated},
      {"max_memory_reserved", r.reference_max_reserved},
  };
  boost::json::array warnings;
  for (const auto& w : r.warnings) warnings.emplace_back(w);
  o["warnings"] = std::move(warnings);
  boost::json::array findings;
  for (const auto& f : r.findings) findings.emplace_back(finding_to_json(f, program));
  o["findings"] = std::move(findings);
  return o;
}

std::string pretty_json(const boost::json::value& v) {
  std::string out;
  pretty(v, 0, out);
  out += "\n";
  return out;
}

const std::vector<std::string>& result_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& c : columns()) n.emplace_back(c.name);
    return n;
  }();
  return names;
}

std::vector<std::string> result_row(const RunResult& r) {
  std::vector<std::string> row;
  row.reserve(columns().size());
  for (const auto& c : columns()) row.push_back(c.get(r));
  return row;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace allocsim
