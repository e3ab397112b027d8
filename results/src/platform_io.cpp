// PlatformProfile <-> JSON. Both directions iterate core/platform.h's kPlatformFields, so a field
// added there round-trips at once.
#include "allocsim/results/platform_io.h"

#include <algorithm>
#include <boost/json.hpp>
#include <sstream>

#include "allocsim/results/atomic_file.h"

namespace allocsim {

namespace {

// A tail of more points than this is not a calibration's (it writes kTailPoints): a bad file.
constexpr std::size_t kMaxTailPoints = 1001;

std::string known_keys() {
  std::string s;
  for (const PlatformField& f : kPlatformFields) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

// Any JSON number, as a double; error otherwise (the range is set_platform_field's to check).
double number_of(const boost::json::value& v, const std::string& source, const char* key) {
  if (v.is_int64()) return double(v.get_int64());
  if (v.is_uint64()) return double(v.get_uint64());
  if (v.is_double()) return v.get_double();
  throw PlatformError(source + ": key '" + key + "' must be a number");
}

// A spread's or a tail's values: an array of `n` numbers (from n to max_n where max_n is above n),
// each at least `floor` and the one before it; `shape` and `order` are the errors for a wrong array
// and a wrong value.
std::vector<double> ascending_values(const boost::json::value& v, std::size_t n, double floor, const std::string& source,
                                     const std::string& key, const std::string& shape, const std::string& order,
                                     std::size_t max_n = 0) {
  if (!v.is_array() || v.get_array().size() < n || v.get_array().size() > std::max(n, max_n)) throw PlatformError(shape);
  std::vector<double> out;
  for (const auto& x : v.get_array()) {
    const double d = number_of(x, source, key.c_str());
    if (!(d >= (out.empty() ? floor : out.back()))) throw PlatformError(order);
    out.push_back(d);
  }
  return out;
}

// One spread entry: `"key": [q0, q1, ...]`, after a comma unless it is the first.
void write_quantiles(std::ostream& out, const char* key, const std::vector<double>& q, bool& first) {
  out << (first ? "\n" : ",\n") << "    \"" << key << "\": [";
  first = false;
  for (std::size_t i = 0; i < q.size(); ++i) out << (i ? ", " : "") << boost::json::serialize(boost::json::value(q[i]));
  out << "]";
}

}  // namespace

std::string platform_to_json(const PlatformProfile& p, const PlatformSpread& spread) {
  std::ostringstream out;
  out << "{\n";
  bool first = true;
  for (const PlatformField& f : kPlatformFields) {
    out << (first ? "" : ",\n") << "  \"" << f.name << "\": ";
    first = false;
    if (f.ns) out << p.*f.ns;
    else out << boost::json::serialize(boost::json::value(p.*f.ratio));
  }
  if (!spread.empty()) {
    out << ",\n  \"spread\": {";
    bool first_field = true;
    for (const PlatformField& f : kPlatformFields) {
      const std::vector<double>& q = spread.quantiles[platform_field_index(f)];
      if (q.empty()) continue;
      write_quantiles(out, f.name, q, first_field);
    }
    if (!spread.host_pace.empty()) write_quantiles(out, kHostPaceKey, spread.host_pace, first_field);
    out << "\n  }";
    bool first_tail = true;
    for (const PlatformField& f : kPlatformFields) {
      const std::vector<double>& t = spread.tails[platform_field_index(f)];
      if (t.empty()) continue;
      if (first_tail) out << ",\n  \"" << kSpreadTailKey << "\": {";
      write_quantiles(out, f.name, t, first_tail);
    }
    if (!first_tail) out << "\n  }";
    if (spread.host_pace_reference_ns > 0)
      out << ",\n  \"" << kHostPaceReferenceKey << "\": " << boost::json::serialize(boost::json::value(spread.host_pace_reference_ns));
    if (spread.host_pace_level != 1)
      out << ",\n  \"" << kHostPaceLevelKey << "\": " << boost::json::serialize(boost::json::value(spread.host_pace_level));
  }
  out << "\n}\n";
  return out.str();
}

PlatformSpread spread_from_json(const std::string& text, const std::string& source) {
  boost::system::error_code ec;
  boost::json::value root = boost::json::parse(text, ec);
  if (ec) throw PlatformError(source + ": not valid JSON: " + ec.message());
  PlatformSpread s;
  if (const boost::json::value* ref = root.is_object() ? root.get_object().if_contains(kHostPaceReferenceKey) : nullptr) {
    s.host_pace_reference_ns = number_of(*ref, source, kHostPaceReferenceKey);
    if (!(s.host_pace_reference_ns > 0 && s.host_pace_reference_ns < 1e15))
      throw PlatformError(source + ": '" + kHostPaceReferenceKey + "' must be a positive duration in ns, below 10^15");
  }
  if (const boost::json::value* level = root.is_object() ? root.get_object().if_contains(kHostPaceLevelKey) : nullptr) {
    s.host_pace_level = number_of(*level, source, kHostPaceLevelKey);
    if (!(s.host_pace_level > 0 && s.host_pace_level < 1e3))
      throw PlatformError(source + ": '" + kHostPaceLevelKey + "' must be a positive factor below 1000");
  }
  const boost::json::value* spread = root.is_object() ? root.get_object().if_contains("spread") : nullptr;
  if (!spread) return s;
  if (!spread->is_object()) throw PlatformError(source + ": 'spread' must be an object of field -> quantiles");
  for (const auto& kv : spread->get_object()) {
    const std::string key(kv.key());
    const bool pace = key == kHostPaceKey;
    const PlatformField* f = find_platform_field(key);
    if (!f && !pace)
      throw PlatformError(source + ": spread: unknown key '" + key + "' (known: " + known_keys() + ", " + kHostPaceKey + ")");
    const std::string order =
        source + ": spread '" + key + "' must be " + (pace ? "positive factors below 1000" : "non-negative") + " and ascending";
    std::vector<double> q = ascending_values(
        kv.value(), kSpreadLevels.size(), 0, source, key,
        source + ": spread '" + key + "' must be an array of " + std::to_string(kSpreadLevels.size()) + " quantiles", order);
    if (pace && !std::all_of(q.begin(), q.end(), [](double x) { return x > 0 && x < 1e3; })) throw PlatformError(order);
    (pace ? s.host_pace : s.quantiles[platform_field_index(*f)]) = std::move(q);
  }
  const boost::json::value* tails = root.get_object().if_contains(kSpreadTailKey);
  if (!tails) return s;
  const std::string where = source + ": " + kSpreadTailKey;
  if (!tails->is_object()) throw PlatformError(where + " must be an object of field -> [p99.9, ..., max]");
  for (const auto& kv : tails->get_object()) {
    const std::string key(kv.key());
    const PlatformField* f = find_platform_field(key);
    if (!f) throw PlatformError(where + ": unknown key '" + key + "' (known: " + known_keys() + ")");
    const std::vector<double>& q = s.quantiles[platform_field_index(*f)];
    if (q.empty()) throw PlatformError(where + ": '" + key + "' has a tail but no quantiles in 'spread'");
    s.tails[platform_field_index(*f)] = ascending_values(
        kv.value(), 2, q.back(), source, key,
        where + ": '" + key + "' must be an array of 2 to " + std::to_string(kMaxTailPoints) +
            " values (p99.9, evenly spaced levels, the largest sample)",
        where + ": '" + key + "' must be ascending from the field's p99", kMaxTailPoints);
  }
  return s;
}

PlatformProfile platform_from_json(const std::string& text, const std::string& source) {
  boost::system::error_code ec;
  boost::json::value root = boost::json::parse(text, ec);
  if (ec) throw PlatformError(source + ": not valid JSON: " + ec.message());
  if (!root.is_object()) throw PlatformError(source + ": expected a JSON object of platform costs");
  PlatformProfile p;
  for (const auto& kv : root.get_object()) {
    if (kv.key() == "spread" || kv.key() == kSpreadTailKey || kv.key() == kHostPaceReferenceKey || kv.key() == kHostPaceLevelKey)
      continue;  // spread_from_json's
    const PlatformField* f = find_platform_field(kv.key());
    if (!f)
      throw PlatformError(source + ": unknown key '" + std::string(kv.key()) + "' (known: " + known_keys() + ")");
    if (std::string why = set_platform_field(p, *f, number_of(kv.value(), source, f->name)); !why.empty())
      throw PlatformError(source + ": " + why);
  }
  return p;
}

void apply_platform_overrides(PlatformProfile& p, const Params& sets) {
  for (const PlatformField& f : kPlatformFields)
    if (sets.has(f.name))
      if (std::string why = set_platform_field(p, f, sets.get(f.name, 0)); !why.empty())
        throw PlatformError("--set " + why);
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

PlatformSpread load_platform_spread(const std::string& path) {
  std::string text;
  try {
    text = read_whole_file(path);
  } catch (const FileWriteError& e) {
    throw PlatformError(std::string("platform file: ") + e.what());
  }
  return spread_from_json(text, path);
}

void save_platform_file(const std::string& path, const PlatformProfile& p, const PlatformSpread& spread) {
  write_file_atomically(path, platform_to_json(p, spread));
}

}  // namespace allocsim
