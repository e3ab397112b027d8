// PlatformProfile <-> JSON. One table of (name, member) drives both directions, so a field added
// to core/platform.h needs one line here and round-trips at once.
#include "allocsim/results/platform_io.h"

#include <boost/json.hpp>
#include <cmath>
#include <sstream>
#include <variant>

#include "allocsim/results/atomic_file.h"

namespace allocsim {

namespace {

using TimeField = TimeNs PlatformProfile::*;
using RealField = double PlatformProfile::*;
struct FieldDef {
  const char* name;
  std::variant<TimeField, RealField> member;
};

const FieldDef kFields[] = {
    {"launch_overhead_ns", &PlatformProfile::launch_overhead_ns},
    {"event_record_ns", &PlatformProfile::event_record_ns},
    {"event_query_ns", &PlatformProfile::event_query_ns},
    {"stream_wait_ns", &PlatformProfile::stream_wait_ns},
    {"callback_enqueue_ns", &PlatformProfile::callback_enqueue_ns},
    {"callback_latency_ns", &PlatformProfile::callback_latency_ns},
    {"callback_run_ns", &PlatformProfile::callback_run_ns},
    {"host_alloc_ns", &PlatformProfile::host_alloc_ns},
    {"host_free_ns", &PlatformProfile::host_free_ns},
    {"sync_wakeup_ns", &PlatformProfile::sync_wakeup_ns},
    {"spin_ns_per_cycle", &PlatformProfile::spin_ns_per_cycle},
};

std::string known_keys() {
  std::string s;
  for (const auto& f : kFields) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

// Any JSON number, as a finite non-negative double; error otherwise.
double number_of(const boost::json::value& v, const std::string& source, const char* key) {
  double d;
  if (v.is_int64()) d = double(v.get_int64());
  else if (v.is_uint64()) d = double(v.get_uint64());
  else if (v.is_double()) d = v.get_double();
  else throw PlatformError(source + ": key '" + key + "' must be a number");
  if (!std::isfinite(d) || d < 0) throw PlatformError(source + ": key '" + key + "' must be a finite number >= 0");
  return d;
}

}  // namespace

std::string platform_to_json(const PlatformProfile& p) {
  std::ostringstream out;
  out << "{\n";
  bool first = true;
  for (const auto& f : kFields) {
    out << (first ? "" : ",\n") << "  \"" << f.name << "\": ";
    first = false;
    if (auto* t = std::get_if<TimeField>(&f.member)) out << p.*(*t);
    else out << boost::json::serialize(boost::json::value(p.*std::get<RealField>(f.member)));
  }
  out << "\n}\n";
  return out.str();
}

PlatformProfile platform_from_json(const std::string& text, const std::string& source) {
  boost::system::error_code ec;
  boost::json::value root = boost::json::parse(text, ec);
  if (ec) throw PlatformError(source + ": not valid JSON: " + ec.message());
  if (!root.is_object()) throw PlatformError(source + ": expected a JSON object of platform costs");
  PlatformProfile p;
  for (const auto& kv : root.get_object()) {
    const FieldDef* def = nullptr;
    for (const auto& f : kFields)
      if (kv.key() == f.name) def = &f;
    if (!def)
      throw PlatformError(source + ": unknown key '" + std::string(kv.key()) + "' (known: " + known_keys() + ")");
    double d = number_of(kv.value(), source, def->name);
    if (auto* t = std::get_if<TimeField>(&def->member)) {
      if (d > 9.0e18) throw PlatformError(source + ": key '" + std::string(def->name) + "' is too large");
      p.*(*t) = TimeNs(std::llround(d));  // calibrations may write medians with fractions of a ns
    } else {
      p.*std::get<RealField>(def->member) = d;
    }
  }
  return p;
}

void apply_platform_overrides(PlatformProfile& p, const Params& sets) {
  for (const auto& f : kFields) {
    if (!sets.has(f.name)) continue;
    const double d = sets.get(f.name, 0);
    if (auto* t = std::get_if<TimeField>(&f.member)) p.*(*t) = TimeNs(std::llround(d));
    else p.*std::get<RealField>(f.member) = d;
  }
}

PlatformProfile load_platform_file(const std::string& path) {
  std::string text;
  try {
    text = read_whole_file(path);
  } catch (const FileWriteError& e) {
    throw PlatformError(std::string("platform file: ") + e.what());
  }
  return platform_from_json(text, path);
}

void save_platform_file(const std::string& path, const PlatformProfile& p) {
  write_file_atomically(path, platform_to_json(p));
}

}  // namespace allocsim
