// YAML scenario loader: parses the format of docs/scenarios.md into a Scenario with a flat Program.
//
// Pipeline: yaml-cpp tree -> params (defaults, then `--set` overrides) -> device / platform /
// streams / defaults -> the program, expanded op by op through ProgramBuilder (which enforces
// buffer/event rules). Every error names the YAML node it came from (FILE:LINE:COL, 1-based).
// Loops are sized before they are expanded, so a huge `repeat` fails at once instead of
// allocating gigabytes; loop iterations count as work too, so empty loops cannot spin.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "allocsim/core/chooser.h"
#include "allocsim/core/seeds.h"
#include "allocsim/scenarios/loader.h"
#include "expression.h"
#include "param_keys.h"
#include "program_builder.h"

namespace allocsim {
namespace {

using scenario_detail::BuildError;
using scenario_detail::ExpressionError;
using scenario_detail::ProgramBuilder;
using scenario_detail::UnitKind;
using scenario_detail::Variables;

constexpr int kMaxNesting = 32;  // repeat-in-repeat depth
constexpr std::string_view kOpNames[] = {
    "alloc", "release", "kernel", "memset", "copy", "record", "wait", "event_sync", "event_query",
    "stream_sync", "device_sync", "begin_execution", "end_execution", "host_delay", "autotune",
    "shutdown", "repeat", "lock", "unlock", "host_callback"};

bool valid_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string node_kind(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "'" + n.Scalar() + "'";
    case YAML::NodeType::Null: return "nothing";
    default: return "an undefined node";
  }
}

std::size_t saturating_mul(std::size_t a, std::size_t b) {
  if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a) return std::numeric_limits<std::size_t>::max();
  return a * b;
}
std::size_t saturating_add(std::size_t a, std::size_t b) {
  return b > std::numeric_limits<std::size_t>::max() - a ? std::numeric_limits<std::size_t>::max() : a + b;
}

class YamlScenarioLoader {
 public:
  YamlScenarioLoader(std::string file, const Params& overrides, const LoadLimits& limits)
      : file_(std::move(file)), overrides_(overrides), limits_(limits) {}

  Scenario load(const std::string& text) {
    if (text.size() > limits_.max_input_bytes)
      throw ScenarioError(file_, 0, 0, "file is larger than " + std::to_string(limits_.max_input_bytes) + " bytes");
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw ScenarioError(file_, e.mark.line < 0 ? 0 : std::size_t(e.mark.line) + 1,
                          e.mark.column < 0 ? 0 : std::size_t(e.mark.column) + 1, "YAML syntax error: " + e.msg);
    }
    if (!root.IsMap()) fail(root, "a scenario file must be a map (name:, params:, device:, program: ...), got " + node_kind(root));
    check_keys(root, {"name", "description", "params", "defaults", "semaphore", "device", "platform", "streams", "program"},
               "scenario");

    if (auto n = root["name"]) scenario_.name = scalar(n, "name");
    if (auto n = root["description"]) scenario_.description = scalar(n, "description");
    if (auto n = root["params"]) parse_params(n);
    apply_param_overrides();
    if (auto n = root["defaults"]) parse_defaults(n);
    if (auto n = root["semaphore"]) {
      scenario_.semaphore = static_cast<int>(integer(n, UnitKind::None, "semaphore", 1, 1000000));
    }
    if (auto n = root["device"]) parse_device(n);
    if (auto n = root["platform"]) parse_platform(n);
    scenario_detail::apply_common_overrides(scenario_, overrides_);
    chooser_ = make_seeded_chooser(seeds::load_draws(scenario_.seed));

    builder_ = std::make_unique<ProgramBuilder>(parse_streams(root["streams"]), limits_.max_ops);
    auto program = root["program"];
    if (!program) fail(root, "missing key 'program' (the host program: a list of ops)");
    expand_list(program, 0);
    const std::vector<std::string> held = builder_->held_mutexes();
    if (!held.empty())
      fail(lock_nodes_.at(held.front()), "mutex '" + held.front() + "' is locked here and still held when the program ends (unlock it)");
    scenario_.program = builder_->take();
    return std::move(scenario_);
  }

 private:
  // ---- errors
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    const YAML::Mark m = n.Mark();
    std::size_t line = m.line < 0 ? 0 : std::size_t(m.line) + 1;
    std::size_t col = m.column < 0 ? 0 : std::size_t(m.column) + 1;
    throw ScenarioError(file_, line, col, msg);
  }

  void check_keys(const YAML::Node& map, std::initializer_list<std::string_view> allowed, const std::string& what) const {
    check_keys(map, std::vector<std::string_view>(allowed), what);
  }

  void check_keys(const YAML::Node& map, const std::vector<std::string_view>& allowed, const std::string& what) const {
    std::vector<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) fail(it->first, "keys of " + what + " must be plain words");
      const std::string& k = it->first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(it->first, "unknown key '" + k + "' in " + what + " (expected one of: " + list + ")");
      }
      if (std::find(seen.begin(), seen.end(), k) != seen.end()) fail(it->first, "duplicate key '" + k + "' in " + what);
      seen.push_back(k);
    }
  }

  // ---- scalars
  std::string scalar(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, "expected a text value for '" + what + "', got " + node_kind(n));
    return n.Scalar();
  }

  double number(const YAML::Node& n, UnitKind kind, const std::string& what) const {
    if (!n.IsScalar()) fail(n, "expected a number for '" + what + "', got " + node_kind(n));
    try {
      return scenario_detail::evaluate_expression(n.Scalar(), vars_, kind);
    } catch (const ExpressionError& e) {
      fail(n, "'" + what + "': " + e.what() + " (in '" + n.Scalar() + "' at character " + std::to_string(e.column + 1) + ")");
    }
  }

  std::uint64_t integer(const YAML::Node& n, UnitKind kind, const std::string& what, double lo, double hi) const {
    double v = number(n, kind, what);
    if (v != std::floor(v)) fail(n, "'" + what + "' must be a whole number, got " + std::to_string(v));
    if (v < lo) fail(n, "'" + what + "' must be at least " + std::to_string(static_cast<long long>(lo)) + ", got " + std::to_string(static_cast<long long>(v)));
    if (v > hi) {
      if (kind == UnitKind::Bytes) fail(n, "size overflow: '" + what + "' is " + std::to_string(v) + " bytes, more than 2^48");
      fail(n, "'" + what + "' is too large (" + std::to_string(v) + " > " + std::to_string(hi) + ")");
    }
    return static_cast<std::uint64_t>(v);
  }

  std::uint64_t bytes(const YAML::Node& n, const std::string& what, bool allow_zero = false) const {
    return integer(n, UnitKind::Bytes, what, allow_zero ? 0 : 1, double(scenario_detail::kMaxBufferBytes));
  }

  bool boolean(const YAML::Node& n, const std::string& what) const {
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      if (s == "true" || s == "yes" || s == "on") return true;
      if (s == "false" || s == "no" || s == "off") return false;
      try {
        return scenario_detail::evaluate_expression(s, vars_, UnitKind::None) != 0;
      } catch (const ExpressionError&) {
      }
    }
    fail(n, "expected true or false for '" + what + "', got " + node_kind(n));
  }

  std::string name(const YAML::Node& n, const std::string& what) const {
    std::string raw = scalar(n, what);
    try {
      std::string s = scenario_detail::interpolate_name(raw, vars_);
      if (s.empty()) fail(n, "'" + what + "' must not be empty");
      return s;
    } catch (const ExpressionError& e) {
      fail(n, "'" + what + "': " + e.what() + " (in '" + raw + "')");
    }
  }

  /// A size: an expression, or {uniform_int: [lo, hi], align: A} / {choice: [a, b, ...]} drawn at
  /// load time from a Chooser seeded by the run's seed (core/seeds.h; same seed -> same sizes).
  std::uint64_t size_value(const YAML::Node& n, const std::string& what) {
    if (!n.IsMap()) return bytes(n, what);
    if (n["uniform_int"]) {
      check_keys(n, {"uniform_int", "align"}, "'" + what + "'");
      auto range = n["uniform_int"];
      if (!range.IsSequence() || range.size() != 2) fail(range, "uniform_int expects [lo, hi]");
      std::uint64_t lo = bytes(range[0], what), hi = bytes(range[1], what);
      if (lo > hi) fail(range, "uniform_int: lo (" + std::to_string(lo) + ") is larger than hi (" + std::to_string(hi) + ")");
      std::uint64_t align = n["align"] ? bytes(n["align"], "align") : 1;
      std::uint64_t v = lo + chooser_->pick(hi - lo + 1);
      v = (v + align - 1) / align * align;
      if (v > scenario_detail::kMaxBufferBytes) fail(n, "size overflow: aligned size is more than 2^48 bytes");
      return v;
    }
    if (n["choice"]) {
      check_keys(n, {"choice"}, "'" + what + "'");
      auto list = n["choice"];
      if (!list.IsSequence() || list.size() == 0) fail(list, "choice expects a non-empty list of sizes");
      std::vector<std::uint64_t> options;
      for (const auto& item : list) options.push_back(bytes(item, what));
      return options[chooser_->pick(options.size())];
    }
    fail(n, "expected a size (e.g. 4MiB), {uniform_int: [lo, hi]} or {choice: [...]} for '" + what + "'");
  }

  /// A duration: an expression (fixed) or one of {fixed: d}, {uniform: [lo, hi]},
  /// {normal|lognormal: {mean: m, stddev: s}} (or [m, s]), {exponential: {mean: m}} (or m).
  Duration duration(const YAML::Node& n, const std::string& what) const {
    auto non_negative = [&](const YAML::Node& v, const std::string& field) {
      double d = number(v, UnitKind::Time, field);
      if (d < 0) fail(v, "negative duration: '" + field + "' is " + std::to_string(d) + " ns");
      if (d > 1e15) fail(v, "duration '" + field + "' is longer than 10^15 ns");
      return d;
    };
    if (n.IsScalar()) return Duration::fixed(non_negative(n, what));
    if (!n.IsMap() || n.size() != 1)
      fail(n, "expected a duration for '" + what + "' (e.g. 10us, {uniform: [5us, 15us]}, {normal: {mean: 10us, stddev: 1us}})");
    const std::string kind = n.begin()->first.IsScalar() ? n.begin()->first.Scalar() : "";
    const YAML::Node args = n.begin()->second;
    auto pair = [&](const char* first, const char* second) -> std::pair<double, double> {
      if (args.IsSequence() && args.size() == 2) return {non_negative(args[0], what), non_negative(args[1], what)};
      if (args.IsMap()) {
        check_keys(args, {first, second}, "'" + kind + "'");
        if (!args[first] || !args[second]) fail(args, kind + " needs both '" + first + "' and '" + second + "'");
        return {non_negative(args[first], first), non_negative(args[second], second)};
      }
      fail(args, kind + " expects [" + first + ", " + second + "] or {" + first + ": .., " + second + ": ..}");
    };
    Duration d;
    if (kind == "fixed") {
      d = Duration::fixed(non_negative(args, what));
    } else if (kind == "uniform") {
      auto [lo, hi] = pair("lo", "hi");
      if (lo > hi) fail(args, "uniform: lo is larger than hi");
      d = {Duration::Kind::Uniform, lo, hi};
    } else if (kind == "normal" || kind == "lognormal") {
      auto [mean, sd] = pair("mean", "stddev");
      if (kind == "lognormal" && mean <= 0) fail(args, "lognormal: mean must be positive");
      d = {kind == "normal" ? Duration::Kind::Normal : Duration::Kind::LogNormal, mean, sd};
    } else if (kind == "exponential") {
      if (args.IsMap()) {
        check_keys(args, {"mean"}, "'exponential'");
        if (!args["mean"]) fail(args, "exponential needs 'mean'");
        d = {Duration::Kind::Exponential, non_negative(args["mean"], "mean"), 0};
      } else {
        d = {Duration::Kind::Exponential, non_negative(args, what), 0};
      }
    } else {
      fail(n.begin()->first, "unknown duration kind '" + kind + "' (expected fixed, uniform, normal, lognormal, exponential)");
    }
    return d;
  }

  // ---- sections
  void parse_params(const YAML::Node& n) {
    if (!n.IsMap()) fail(n, "expected a map of name: default value for 'params', got " + node_kind(n));
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string key = scalar(it->first, "params");
      if (!valid_identifier(key)) fail(it->first, "parameter name '" + key + "' must be a word (letters, digits, _)");
      if (vars_.count(key)) fail(it->first, "duplicate parameter '" + key + "'");
      if (scenario_detail::is_well_known_key(key) || scenario_detail::is_policy_key(key))
        fail(it->first, "parameter '" + key + "' is a well-known key; set it in its own section instead");
      double v = number(it->second, UnitKind::Any, key);
      vars_[key] = v;
      param_order_.push_back(key);
    }
  }

  void apply_param_overrides() {
    scenario_detail::check_set_keys(overrides_, param_order_);
    for (const auto& [key, value] : overrides_.all())
      if (vars_.count(key)) vars_[key] = value;
    for (const auto& k : param_order_) scenario_.params.set(k, vars_[k]);
  }

  void parse_defaults(const YAML::Node& n) {
    if (!n.IsMap()) fail(n, "expected a map for 'defaults', got " + node_kind(n));
    check_keys(n, {"policy", "guard", "seed"}, "defaults");
    if (n["policy"]) scenario_.default_policy = scalar(n["policy"], "policy");
    if (n["guard"]) scenario_.default_guard = scalar(n["guard"], "guard");
    if (n["seed"]) scenario_.seed = integer(n["seed"], UnitKind::None, "seed", 0, double(seeds::kMax));
  }

  void parse_device(const YAML::Node& n) {
    if (!n.IsMap()) fail(n, "expected a map for 'device', got " + node_kind(n));
    check_keys(n, {"memory_limit", "total_memory", "preallocate", "allow_growth", "gc", "fragmentation_fraction",
                   "private_pool_limit"}, "device");
    DeviceSpec& d = scenario_.device;
    if (n["memory_limit"]) d.memory_limit = bytes(n["memory_limit"], "memory_limit");
    if (n["preallocate"]) {
      if (n["memory_limit"]) fail(n["preallocate"], "give either memory_limit or total_memory + preallocate, not both");
      if (!n["total_memory"]) fail(n["preallocate"], "preallocate (a fraction) needs total_memory");
      double f = number(n["preallocate"], UnitKind::None, "preallocate");
      if (!(f > 0 && f <= 1)) fail(n["preallocate"], "preallocate must be a fraction in (0, 1]");
      d.memory_limit = static_cast<std::uint64_t>(std::floor(f * double(bytes(n["total_memory"], "total_memory"))));
      if (d.memory_limit == 0) fail(n["preallocate"], "preallocate leaves a pool of 0 bytes");
    } else if (n["total_memory"]) {
      if (n["memory_limit"]) fail(n["total_memory"], "give either memory_limit or total_memory + preallocate, not both");
      d.memory_limit = bytes(n["total_memory"], "total_memory");
    }
    if (n["allow_growth"]) d.allow_growth = boolean(n["allow_growth"], "allow_growth");
    if (n["gc"]) d.garbage_collection = boolean(n["gc"], "gc");
    if (n["fragmentation_fraction"]) {
      double f = number(n["fragmentation_fraction"], UnitKind::None, "fragmentation_fraction");
      if (!(f >= 0 && f <= 1)) fail(n["fragmentation_fraction"], "fragmentation_fraction must be between 0 and 1");
      d.fragmentation_fraction = f;
    }
    if (n["private_pool_limit"]) d.private_pool_limit = bytes(n["private_pool_limit"], "private_pool_limit");
  }

  void parse_platform(const YAML::Node& n) {
    if (!n.IsMap()) fail(n, "expected a map for 'platform', got " + node_kind(n));
    static const std::vector<std::string_view> keys = [] {
      std::vector<std::string_view> k;
      for (const PlatformField& f : kPlatformFields) k.emplace_back(f.name);
      return k;
    }();
    check_keys(n, keys, "platform");
    for (auto it = n.begin(); it != n.end(); ++it) {
      const PlatformField& f = *find_platform_field(it->first.Scalar());
      const double v = number(it->second, f.ns ? UnitKind::Time : UnitKind::None, f.name);
      if (std::string why = set_platform_field(scenario_.platform, f, v); !why.empty()) fail(it->second, why);
    }
  }

  std::vector<StreamSpec> parse_streams(const YAML::Node& n) {
    std::vector<StreamSpec> streams{{"compute", true}};
    if (!n) {
      streams.push_back({"autotune", false});
      return streams;
    }
    if (!n.IsSequence()) fail(n, "expected a list of stream names for 'streams', got " + node_kind(n));
    for (std::size_t i = 0; i < n.size(); ++i) {
      std::string s = scalar(n[i], "streams");
      if (!valid_identifier(s)) fail(n[i], "stream name '" + s + "' must be a word (letters, digits, _)");
      if (s == "compute") {
        if (i != 0) fail(n[i], "'compute' must be the first stream");
        continue;
      }
      for (const auto& existing : streams)
        if (existing.name == s) fail(n[i], "duplicate stream '" + s + "'");
      streams.push_back({s, false});
    }
    return streams;
  }

  // ---- the program
  template <class F>
  void at(const YAML::Node& n, F&& f) {
    try {
      f();
    } catch (const BuildError& e) {
      fail(n, e.what());
    }
  }

  StreamId stream_of(const YAML::Node& args, const char* fallback) {
    std::string s = args.IsMap() && args["stream"] ? name(args["stream"], "stream") : std::string(fallback);
    StreamId id = 0;
    at(args.IsMap() && args["stream"] ? args["stream"] : args, [&] { id = builder_->stream(s); });
    return id;
  }

  std::vector<BufferAccess> accesses(const YAML::Node& n, const std::string& what) {
    std::vector<BufferAccess> out;
    if (!n) return out;
    auto one = [&](const YAML::Node& item) {
      if (item.IsMap()) {
        check_keys(item, {"buffer", "offset", "bytes"}, "a buffer access");
        if (!item["buffer"]) fail(item, "a buffer access needs 'buffer'");
        std::string b = name(item["buffer"], "buffer");
        std::uint64_t off = item["offset"] ? bytes(item["offset"], "offset", true) : 0;
        std::uint64_t len = item["bytes"] ? bytes(item["bytes"], "bytes", true) : 0;
        at(item, [&] { out.push_back(builder_->access(b, off, len)); });
      } else {
        std::string b = name(item, what);
        at(item, [&] { out.push_back(builder_->access(b, 0, 0)); });
      }
    };
    if (n.IsSequence()) {
      for (const auto& item : n) one(item);
    } else {
      one(n);
    }
    return out;
  }

  static std::string op_key(const YAML::Node& item) {
    if (item.IsScalar()) return item.Scalar();
    if (!item.IsMap()) return "";
    if (item["repeat"]) return "repeat";
    if (item.size() == 1 && item.begin()->first.IsScalar()) return item.begin()->first.Scalar();
    return "";
  }

  /// Upper estimate of the work (ops + loop iterations) of `list`, without expanding it.
  std::size_t estimate(const YAML::Node& list, int depth, std::size_t& visits) {
    if (!list || !list.IsSequence() || depth > kMaxNesting) return 0;  // a missing body is reported when expanded
    std::size_t total = 0;
    for (const auto& item : list) {
      if (++visits > limits_.max_ops) return std::numeric_limits<std::size_t>::max();
      const std::string key = op_key(item);
      if (key == "repeat") {
        double count = 0;
        try {
          if (item["repeat"].IsScalar())
            count = scenario_detail::evaluate_expression(item["repeat"].Scalar(), vars_, UnitKind::None);
        } catch (const ExpressionError&) {
          count = 0;  // depends on an inner loop variable: checked while expanding
        }
        if (!(count >= 0)) count = 0;
        std::size_t c = count > 1e18 ? std::numeric_limits<std::size_t>::max() : std::size_t(count);
        total = saturating_add(total, saturating_mul(c, saturating_add(1, estimate(item["body"], depth + 1, visits))));
      } else if (key == "autotune") {
        total = saturating_add(total, 8);
      } else {
        total = saturating_add(total, 1);
      }
    }
    return total;
  }

  void expand_list(const YAML::Node& list, int depth) {
    if (!list.IsSequence()) fail(list, "expected a list of ops, got " + node_kind(list));
    for (const auto& item : list) expand_op(item, depth);
  }

  void expand_repeat(const YAML::Node& item, int depth) {
    check_keys(item, {"repeat", "body", "var"}, "repeat");
    if (depth >= kMaxNesting) fail(item, "repeat nested more than " + std::to_string(kMaxNesting) + " deep");
    std::uint64_t count = integer(item["repeat"], UnitKind::None, "repeat", 0, double(limits_.max_ops));
    auto body = item["body"];
    if (!body) fail(item, "repeat needs a 'body' (a list of ops)");
    if (!body.IsSequence()) fail(body, "expected a list of ops for 'body', got " + node_kind(body));
    std::string var;
    if (item["var"]) {
      var = scalar(item["var"], "var");
      if (!valid_identifier(var)) fail(item["var"], "loop variable '" + var + "' must be a word");
      if (vars_.count(var)) fail(item["var"], "loop variable '" + var + "' shadows a parameter or an outer loop variable");
    }
    std::size_t visits = 0;
    std::size_t est = saturating_mul(count, saturating_add(1, estimate(body, depth + 1, visits)));
    if (saturating_add(builder_->work(), est) > limits_.max_ops)
      fail(item, "repeat of " + std::to_string(count) + " iterations expands past the limit of " +
                     std::to_string(limits_.max_ops) + " ops (reduce the repeat count)");
    for (std::uint64_t i = 0; i < count; ++i) {
      at(item, [&] { builder_->charge_work(1); });
      if (!var.empty()) vars_[var] = double(i);
      expand_list(body, depth + 1);
    }
    if (!var.empty()) vars_.erase(var);
  }

  void expand_op(const YAML::Node& item, int depth) {
    const std::string key = op_key(item);
    if (key.empty()) {
      if (item.IsMap() && item.size() > 1)
        fail(item, "an op is a map with exactly one op key (e.g. `- kernel: {...}`); got " + std::to_string(item.size()) + " keys");
      fail(item, "expected an op (alloc, kernel, release, repeat, ...), got " + node_kind(item));
    }
    if (std::find(std::begin(kOpNames), std::end(kOpNames), key) == std::end(kOpNames)) {
      std::string list;
      for (auto k : kOpNames) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(item.IsMap() ? item.begin()->first : item, "unknown op '" + key + "' (expected one of: " + list + ")");
    }
    if (key == "repeat") return expand_repeat(item, depth);
    const YAML::Node args = item.IsMap() ? item.begin()->second : YAML::Node();
    const auto line = static_cast<std::uint32_t>(item.Mark().line + 1);
    HostOp op;
    op.source_line = line;
    auto require_map = [&](std::initializer_list<std::string_view> keys) {
      if (!args.IsMap()) fail(item, "'" + key + "' expects a map of arguments, got " + node_kind(args));
      check_keys(args, keys, "'" + key + "'");
    };
    auto require = [&](const char* field) {
      if (!args[field]) fail(args, "'" + key + "' needs '" + field + "'");
      return args[field];
    };
    auto no_args = [&] {
      if (item.IsMap() && !args.IsNull() && !(args.IsMap() && args.size() == 0))
        fail(args, "'" + key + "' takes no arguments");
    };

    if (key == "alloc") {
      require_map({"buffer", "size", "stream"});
      std::string b = name(require("buffer"), "buffer");
      std::uint64_t size = size_value(require("size"), "size");
      StreamId s = stream_of(args, "compute");
      at(item, [&] { builder_->alloc(b, s, size, line); });
    } else if (key == "release") {
      if (args.IsSequence()) {
        for (const auto& b : args) {
          std::string n = name(b, "release");
          at(b, [&] { builder_->release(n, line); });
        }
      } else if (args.IsMap()) {
        require_map({"buffer"});
        std::string n = name(require("buffer"), "buffer");
        at(item, [&] { builder_->release(n, line); });
      } else {
        std::string n = name(args, "release");
        at(args, [&] { builder_->release(n, line); });
      }
    } else if (key == "kernel") {
      require_map({"name", "stream", "duration", "reads", "writes"});
      op.kind = HostOpKind::Kernel;
      op.stream = stream_of(args, "compute");
      op.duration = duration(require("duration"), "duration");
      op.reads = accesses(args["reads"], "reads");
      op.writes = accesses(args["writes"], "writes");
      at(item, [&] { builder_->push(std::move(op)); });
    } else if (key == "memset") {
      require_map({"stream", "buffer", "writes", "duration"});
      op.kind = HostOpKind::Memset;
      op.stream = stream_of(args, "compute");
      op.duration = args["duration"] ? duration(args["duration"], "duration") : Duration::fixed(0);
      if (args["buffer"] && args["writes"]) fail(args, "memset takes 'buffer' or 'writes', not both");
      op.writes = accesses(args["buffer"] ? args["buffer"] : require("writes"), "buffer");
      at(item, [&] { builder_->push(std::move(op)); });
    } else if (key == "copy") {
      require_map({"stream", "src", "dst", "duration"});
      op.kind = HostOpKind::Copy;
      op.stream = stream_of(args, "compute");
      op.duration = args["duration"] ? duration(args["duration"], "duration") : Duration::fixed(0);
      op.reads = accesses(require("src"), "src");
      op.writes = accesses(require("dst"), "dst");
      at(item, [&] { builder_->push(std::move(op)); });
    } else if (key == "record") {
      require_map({"event", "stream"});
      std::string e = name(require("event"), "event");
      StreamId s = stream_of(args, "compute");
      at(item, [&] { builder_->record(e, s, line); });
    } else if (key == "wait") {
      require_map({"event", "stream"});
      op.kind = HostOpKind::StreamWait;
      std::string e = name(require("event"), "event");
      op.stream = stream_of(args, "compute");
      at(args["event"], [&] { op.event = builder_->recorded_event(e); });
      at(item, [&] { builder_->push(std::move(op)); });
    } else if (key == "event_sync" || key == "event_query") {
      op.kind = key == "event_sync" ? HostOpKind::EventSync : HostOpKind::EventQuery;
      std::string e = name(args, key);
      at(args, [&] { op.event = builder_->recorded_event(e); });
      at(item, [&] { builder_->push(std::move(op)); });
    } else if (key == "stream_sync") {
      op.kind = HostOpKind::StreamSync;
      std::string s = item.IsScalar() ? std::string("compute") : name(args, "stream_sync");
      at(item, [&] { op.stream = builder_->stream(s); });
      at(item, [&] { builder_->push(std::move(op)); });
    } else if (key == "device_sync" || key == "begin_execution" || key == "end_execution") {
      no_args();
      op.kind = key == "device_sync" ? HostOpKind::DeviceSync
                : key == "begin_execution" ? HostOpKind::BeginExecution : HostOpKind::EndExecution;
      at(item, [&] { builder_->push(std::move(op)); });
    } else if (key == "host_delay") {
      if (item.IsScalar()) fail(item, "'host_delay' needs a duration (e.g. `- host_delay: 10us`)");
      op.kind = HostOpKind::HostDelay;
      op.duration = duration(args, "host_delay");
      at(item, [&] { builder_->push(std::move(op)); });
    } else if (key == "shutdown") {
      op.kind = HostOpKind::Shutdown;
      if (item.IsMap() && !args.IsNull()) {
        require_map({"order"});
        const YAML::Node order = require("order");
        std::string o = scalar(order, "order");
        if (o == "xla") op.wrong_order = false;
        else if (o == "wrong") op.wrong_order = true;
        else op.wrong_order = boolean(order, "order (xla, wrong, or a 0/1 expression)");
      }
      at(item, [&] { builder_->push(std::move(op)); });
    } else if (key == "autotune") {
      expand_autotune(item, args, line);
    } else if (key == "lock" || key == "unlock") {
      if (item.IsScalar()) fail(item, "'" + key + "' needs a mutex name (e.g. `- " + key + ": mu`)");
      const std::string m = name(args, key);
      if (key == "lock") {
        at(args, [&] { builder_->lock(m, line); });
        lock_nodes_.insert_or_assign(m, args);
      } else {
        at(args, [&] { builder_->unlock(m, line); });
      }
    } else if (key == "host_callback") {
      require_map({"stream", "locks", "duration"});
      op.kind = HostOpKind::HostCallback;
      op.stream = stream_of(args, "compute");
      op.duration = args["duration"] ? duration(args["duration"], "duration") : Duration::fixed(0);
      op.mutexes = mutex_list(args["locks"]);
      at(item, [&] { builder_->push(std::move(op)); });
    }
  }

  /// A host callback's `locks`: a mutex name or a list of them, each at most once, in the order the
  /// body takes them.
  std::vector<MutexId> mutex_list(const YAML::Node& n) {
    std::vector<MutexId> out;
    if (!n) return out;
    if (!n.IsScalar() && !n.IsSequence()) fail(n, "expected a mutex name or a list of them for 'locks', got " + node_kind(n));
    auto one = [&](const YAML::Node& item) {
      const std::string m = name(item, "locks");
      MutexId id = kNoMutex;
      at(item, [&] { id = builder_->mutex(m); });
      if (std::find(out.begin(), out.end(), id) != out.end()) fail(item, "mutex '" + m + "' is listed twice in 'locks'");
      out.push_back(id);
    };
    if (n.IsSequence()) {
      for (const auto& item : n) one(item);
    } else {
      one(n);
    }
    return out;
  }

  /// An MIOpen-style autotune pass: scratch from the shared pool on the autotune stream (so the
  /// guard applies), zeroed, candidate kernels, a sync (default on), release. The sync is the
  /// real autotuner's: it reads each candidate's time from a GpuTimer, which waits for the stream,
  /// before its ScratchAllocator frees the scratch (sources in policies/src/policies/immediate.cpp).
  void expand_autotune(const YAML::Node& item, const YAML::Node& args, std::uint32_t line) {
    if (!args.IsMap()) fail(item, "'autotune' expects a map of arguments, got " + node_kind(args));
    check_keys(args, {"stream", "buffer", "scratch", "memset_duration", "candidates", "candidate_duration", "reads", "sync"},
               "'autotune'");
    if (!args["scratch"]) fail(args, "'autotune' needs 'scratch' (the scratch size)");
    StreamId s = stream_of(args, "autotune");
    std::string scratch = args["buffer"] ? name(args["buffer"], "buffer") : std::string("autotune_scratch");
    std::uint64_t size = size_value(args["scratch"], "scratch");
    Duration zero_time = args["memset_duration"] ? duration(args["memset_duration"], "memset_duration") : Duration::fixed(2000);
    std::uint64_t candidates = args["candidates"] ? integer(args["candidates"], UnitKind::None, "candidates", 0, 4096) : 3;
    Duration candidate_time =
        args["candidate_duration"] ? duration(args["candidate_duration"], "candidate_duration") : Duration::fixed(50000);
    bool sync = args["sync"] ? boolean(args["sync"], "sync") : true;
    at(item, [&] {
      BufferId id = builder_->alloc(scratch, s, size, line);
      HostOp zero;
      zero.kind = HostOpKind::Memset;
      zero.stream = s;
      zero.duration = zero_time;
      zero.writes = {BufferAccess{id, 0, 0}};
      zero.source_line = line;
      builder_->push(zero);
    });
    std::vector<BufferAccess> inputs = accesses(args["reads"], "reads");
    at(item, [&] {
      BufferId id = builder_->live_buffer(scratch);
      for (std::uint64_t c = 0; c < candidates; ++c) {
        HostOp k;
        k.kind = HostOpKind::Kernel;
        k.stream = s;
        k.duration = candidate_time;
        k.reads = inputs;
        k.reads.push_back(BufferAccess{id, 0, 0});
        k.writes = {BufferAccess{id, 0, 0}};
        k.source_line = line;
        builder_->push(std::move(k));
      }
      if (sync) {
        HostOp wait;
        wait.kind = HostOpKind::StreamSync;
        wait.stream = s;
        wait.source_line = line;
        builder_->push(wait);
      }
      builder_->release(scratch, line);
    });
  }

  std::string file_;
  const Params& overrides_;
  LoadLimits limits_;
  Scenario scenario_;
  Variables vars_;
  std::vector<std::string> param_order_;
  std::unique_ptr<Chooser> chooser_;
  std::unique_ptr<ProgramBuilder> builder_;
  std::map<std::string, YAML::Node> lock_nodes_;  // mutex -> its latest `lock` (for "still held at the end")
};

}  // namespace

Scenario load_scenario_yaml(const std::string& yaml_text, const std::string& file_label, const Params& overrides,
                            const LoadLimits& limits) {
  try {
    return YamlScenarioLoader(file_label, overrides, limits).load(yaml_text);
  } catch (const YAML::Exception& e) {  // safety net: yaml-cpp misuse must still be a clean error
    throw ScenarioError(file_label, e.mark.line < 0 ? 0 : std::size_t(e.mark.line) + 1,
                        e.mark.column < 0 ? 0 : std::size_t(e.mark.column) + 1, "bad scenario structure: " + e.msg);
  }
}

}  // namespace allocsim
