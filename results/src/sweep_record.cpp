// Sweep storage of one run: DESIGN.md section 6 JSON object and CSV row (see sweep_record.h).
#include "allocsim/results/sweep_record.h"

#include <boost/json.hpp>
#include <sstream>

#include "allocsim/results/result_json.h"

namespace allocsim::results {
namespace json = boost::json;

std::string sweep_csv_text(const std::vector<RunResult>& results) {
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) os << (i ? "," : "") << csv_field(cells[i]);
    os << '\n';
  };
  line(result_columns());
  for (const auto& r : results) line(result_row(r));
  return os.str();
}

std::string run_result_json(const RunResult& r) {
  // The same object `allocsim run --json` writes, less the finding records: a sweep keeps the
  // counts (every row) but not hundreds of per-run race reports (re-run one config to see them).
  json::object o = result_to_json(r);
  o.erase("findings");
  return json::serialize(o);
}

namespace {

const json::value* find_path(const json::object& o, const std::string& dotted) {
  const json::object* cur = &o;
  std::size_t start = 0;
  while (true) {
    auto dot = dotted.find('.', start);
    auto key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    if (dot == std::string::npos) return &it->value();
    if (!it->value().is_object()) return nullptr;
    cur = &it->value().as_object();
    start = dot + 1;
  }
}

struct Reader {
  const json::object& o;
  std::string missing;  // first missing/ill-typed required key
  template <class T>
  void num(const char* key, T& out, bool required = true) {
    const json::value* v = find_path(o, key);
    if (v && v->is_int64() && v->as_int64() >= 0) out = static_cast<T>(v->as_int64());
    else if (v && v->is_uint64()) out = static_cast<T>(v->as_uint64());
    else if (v && v->is_int64() && std::is_signed_v<T>) out = static_cast<T>(v->as_int64());
    else if (required && missing.empty()) missing = key;
  }
  void str(const char* key, std::string& out, bool required = true) {
    const json::value* v = find_path(o, key);
    if (v && v->is_string()) out = std::string(v->as_string());
    else if (required && missing.empty()) missing = key;
  }
};

}  // namespace

std::optional<RunResult> run_result_from_json(const std::string& text, std::string* error) {
  boost::system::error_code ec;
  const json::value v = json::parse(text, ec);
  if (!ec) return run_result_from_value(v, error);
  if (error) *error = "not JSON: " + ec.message();
  return std::nullopt;
}

std::optional<RunResult> run_result_from_value(const json::value& v, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<RunResult> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (!v.is_object()) return fail("not a JSON object");
  const auto& o = v.as_object();
  RunResult r;
  Reader rd{o, {}};
  // the races are required (DESIGN.md section 6); the lifetime counts came later
  auto count = [&](FindingKind k, bool required) {
    const std::string key = "races." + std::string(kFindingKindNames[std::size_t(k)].count_key);
    rd.num(key.c_str(), r.count(k), required);
  };
  rd.str("scenario", r.scenario);
  rd.str("policy", r.policy);
  rd.str("guard", r.guard);
  rd.num("semaphore", r.semaphore);
  rd.num("seed", r.seed);
  count(FindingKind::Latent, true);
  count(FindingKind::Manifest, true);
  rd.num("memory.peak_bytes_in_use", r.peak_bytes_in_use);
  rd.num("memory.peak_live_bytes", r.peak_live_bytes);
  rd.num("memory.peak_pending_bytes", r.peak_pending_bytes);
  rd.num("memory.peak_pool_bytes", r.peak_pool_bytes);
  rd.num("time.makespan_ns", r.makespan_ns);
  rd.num("time.host_stall_ns", r.host_stall_ns);
  rd.num("counts.allocs", r.allocs);
  rd.num("counts.frees", r.frees);
  rd.num("counts.callbacks", r.callbacks);
  rd.num("counts.ooms", r.ooms);
  rd.num("counts.fallbacks", r.fallbacks);
  if (!rd.missing.empty()) return fail("missing or ill-typed key '" + rd.missing + "'");
  rd.str("error", r.error, false);
  if (auto* c = find_path(o, "completed"); c && c->is_bool()) r.completed = c->as_bool();
  for (const FindingKindNames& k : kFindingKindNames)
    if (is_lifetime(k.kind)) count(k.kind, false);
  rd.num("memory.peak_in_use_time_ns", r.peak_in_use_time, false);
  rd.num("memory.peak_live_time_ns", r.peak_live_time, false);
  rd.num("memory.peak_pending_time_ns", r.peak_pending_time, false);
  rd.num("memory.peak_pool_time_ns", r.peak_pool_time, false);
  rd.num("reference.max_memory_allocated", r.reference_max_allocated, false);
  rd.num("reference.max_memory_reserved", r.reference_max_reserved, false);
  // Host blocking by cause came after the contract (issue 15): optional, 0 in older results.
  rd.num("time.host_blocked_policy_ns", r.host_blocked_policy_ns, false);
  rd.num("time.host_blocked_semaphore_ns", r.host_blocked_semaphore_ns, false);
  rd.num("time.host_blocked_oom_ns", r.host_blocked_oom_ns, false);
  rd.num("time.host_blocked_sync_ns", r.host_blocked_sync_ns, false);
  rd.num("time.device_idle_ns", r.device_idle_ns, false);
  // Host time in release plans came later still (issue 15, point 5): optional likewise.
  rd.num("time.host_release_ns", r.host_release_ns, false);
  rd.num("counts.releases", r.releases, false);
  if (auto* d = find_path(o, "race_detection"); d && d->is_bool()) r.race_detection = d->as_bool();
  if (auto* w = find_path(o, "warnings"); w && w->is_array())
    for (const auto& s : w->as_array())
      if (s.is_string()) r.warnings.emplace_back(s.as_string());
  return r;
}

}  // namespace allocsim::results
