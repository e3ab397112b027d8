// The schedule file's parser and writer (core/schedule.h, docs/explore.md).
#include "allocsim/core/schedule.h"

#include <boost/json.hpp>
#include <sstream>

namespace allocsim {
namespace {

namespace json = boost::json;

/// Throws "SOURCE: WHERE: WHAT" (WHERE may be empty: the whole file).
[[noreturn]] void fail(const std::string& source, const std::string& where, const std::string& what) {
  throw ScheduleError(source + ": " + (where.empty() ? "" : where + ": ") + what);
}

/// The integer at `v`, or an error: schedules count ops, so 2.5 or "2" is a mistake, not a value.
std::int64_t integer(const json::value& v, const std::string& source, const std::string& where) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64() && v.get_uint64() <= std::uint64_t(INT64_MAX)) return std::int64_t(v.get_uint64());
  if (v.is_double() && v.get_double() == double(std::int64_t(v.get_double()))) return std::int64_t(v.get_double());
  fail(source, where, "must be an integer, not " + json::serialize(v));
}

const json::value& member(const json::object& o, const char* key, const std::string& source, const std::string& where) {
  const json::value* v = o.if_contains(key);
  if (!v) fail(source, where, std::string("missing \"") + key + "\"");
  return *v;
}

std::string text(const json::object& o, const char* key, const std::string& source, const std::string& where) {
  const json::value& v = member(o, key, source, where);
  if (!v.is_string() || v.get_string().empty())
    fail(source, where.empty() ? key : where + "." + key, "must be a non-empty string");
  return std::string(v.get_string());
}

/// Only the keys of the agent: a "stream" on a host locator is a typo that would otherwise be
/// silently ignored and force a different step than the one meant.
void only_keys(const json::object& o, std::initializer_list<const char*> keys, const std::string& source,
               const std::string& where) {
  for (const auto& kv : o) {
    bool known = false;
    for (const char* k : keys) known = known || kv.key() == k;
    if (!known) fail(source, where, "unexpected key \"" + std::string(kv.key()) + "\"");
  }
}

StepLocator locator(const json::value& v, const std::string& source, const std::string& where) {
  if (!v.is_object()) fail(source, where, "must be an object {\"agent\": ..., ...}");
  const json::object& o = v.get_object();
  const std::string agent = text(o, "agent", source, where);
  StepLocator l;
  if (agent == "host") {
    only_keys(o, {"agent", "op"}, source, where);
    l.agent = StepLocator::Agent::Host;
    l.index = integer(member(o, "op", source, where), source, where + ".op");
    if (l.index < 0) fail(source, where + ".op", "must be >= 0 (an index into the program's ops)");
  } else if (agent == "stream") {
    only_keys(o, {"agent", "stream", "op"}, source, where);
    l.agent = StepLocator::Agent::Stream;
    l.stream = text(o, "stream", source, where);
    l.index = integer(member(o, "op", source, where), source, where + ".op");
    if (l.index < 0) fail(source, where + ".op", "must be >= 0 (device ops on a stream count from 0)");
  } else if (agent == "callback") {
    only_keys(o, {"agent", "callback"}, source, where);
    l.agent = StepLocator::Agent::Callback;
    l.index = integer(member(o, "callback", source, where), source, where + ".callback");
    if (l.index < 1) fail(source, where + ".callback", "must be >= 1 (callbacks count from 1)");
  } else {
    fail(source, where + ".agent", "unknown agent \"" + agent + "\" (host, stream or callback)");
  }
  return l;
}

std::string quoted(std::string_view s) { return json::serialize(json::value(json::string(s))); }

std::string locator_json(const StepLocator& l) {
  switch (l.agent) {
    case StepLocator::Agent::Host: return "{\"agent\": \"host\", \"op\": " + std::to_string(l.index) + "}";
    case StepLocator::Agent::Stream:
      return "{\"agent\": \"stream\", \"stream\": " + quoted(l.stream) + ", \"op\": " + std::to_string(l.index) + "}";
    case StepLocator::Agent::Callback:
      return "{\"agent\": \"callback\", \"callback\": " + std::to_string(l.index) + "}";
  }
  return "{}";
}

}  // namespace

Schedule parse_schedule(std::string_view text_in, const std::string& source) {
  json::error_code ec;
  const json::value root = json::parse(text_in, ec);
  if (ec) fail(source, "", "not valid JSON: " + ec.message());
  if (!root.is_object()) fail(source, "", "must be a JSON object");
  const json::object& o = root.get_object();
  const json::value* version = o.if_contains("allocsim_schedule");
  if (!version) fail(source, "", "missing \"allocsim_schedule\": not a schedule file");
  if (!(version->is_number() && integer(*version, source, "allocsim_schedule") == kScheduleVersion))
    fail(source, "allocsim_schedule",
         "version " + json::serialize(*version) + " is not supported (this allocsim reads version " +
             std::to_string(kScheduleVersion) + ")");
  Schedule s;
  s.scenario = text(o, "scenario", source, "");
  s.policy = text(o, "policy", source, "");
  s.guard = text(o, "guard", source, "");
  const std::int64_t sem = integer(member(o, "semaphore", source, ""), source, "semaphore");
  if (sem < 1 || sem > (1 << 20)) fail(source, "semaphore", "must be in 1 .. 1048576");
  s.semaphore = int(sem);
  const std::int64_t seed = integer(member(o, "seed", source, ""), source, "seed");
  if (seed < 0 || std::uint64_t(seed) > (std::uint64_t(1) << 53)) fail(source, "seed", "must be in 0 .. 2^53");
  s.seed = std::uint64_t(seed);
  if (const json::value* set = o.if_contains("set")) {
    if (!set->is_object()) fail(source, "set", "must be an object of key: value");
    for (const auto& kv : set->get_object()) {
      const std::string where = "set." + std::string(kv.key());
      // --set values are typed as text; a number written without quotes means the same.
      if (kv.value().is_string()) s.set[std::string(kv.key())] = std::string(kv.value().get_string());
      else if (kv.value().is_number()) s.set[std::string(kv.key())] = json::serialize(kv.value());
      else fail(source, where, "must be a string or a number");
    }
  }
  const json::value& delays = member(o, "delays", source, "");
  if (!delays.is_array()) fail(source, "delays", "must be an array");
  for (std::size_t i = 0; i < delays.get_array().size(); ++i) {
    const std::string where = "delays[" + std::to_string(i) + "]";
    const json::value& d = delays.get_array()[i];
    if (!d.is_object()) fail(source, where, "must be an object {\"hold\": ..., \"until\": ...}");
    only_keys(d.get_object(), {"hold", "until", "held_ns"}, source, where);
    Delay delay;
    delay.hold = locator(member(d.get_object(), "hold", source, where), source, where + ".hold");
    delay.until = locator(member(d.get_object(), "until", source, where), source, where + ".until");
    if (delay.hold == delay.until) fail(source, where, "holds a step until itself");
    if (const json::value* held = d.get_object().if_contains("held_ns")) {
      delay.held_ns = integer(*held, source, where + ".held_ns");
      if (*delay.held_ns < 0) fail(source, where + ".held_ns", "must be >= 0");
    }
    s.delays.push_back(std::move(delay));
  }
  if (const json::value* outcome = o.if_contains("outcome")) {
    if (!outcome->is_object()) fail(source, "outcome", "must be an object");
    s.outcome_json = json::serialize(*outcome);
  }
  return s;
}

std::string write_schedule(const Schedule& s) {
  std::ostringstream out;
  out << "{\n  \"allocsim_schedule\": " << kScheduleVersion << ",\n";
  out << "  \"scenario\": " << quoted(s.scenario) << ",\n";
  out << "  \"policy\": " << quoted(s.policy) << ",\n";
  out << "  \"guard\": " << quoted(s.guard) << ",\n";
  out << "  \"semaphore\": " << s.semaphore << ",\n";
  out << "  \"seed\": " << s.seed << ",\n";
  out << "  \"set\": {";
  bool first = true;
  for (const auto& [key, value] : s.set) {  // std::map: sorted, so the text is deterministic
    out << (first ? "" : ", ") << quoted(key) << ": " << quoted(value);
    first = false;
  }
  out << "},\n  \"delays\": [";
  for (std::size_t i = 0; i < s.delays.size(); ++i) {
    const Delay& d = s.delays[i];
    out << (i ? ",\n" : "\n") << "    {\"hold\": " << locator_json(d.hold) << ",\n     \"until\": " << locator_json(d.until);
    if (d.held_ns) out << ",\n     \"held_ns\": " << *d.held_ns;
    out << "}";
  }
  out << (s.delays.empty() ? "]" : "\n  ]");
  if (!s.outcome_json.empty()) out << ",\n  \"outcome\": " << s.outcome_json;
  out << "\n}\n";
  return out.str();
}

std::string describe(const StepLocator& l) {
  switch (l.agent) {
    case StepLocator::Agent::Host: return "host op " + std::to_string(l.index);
    case StepLocator::Agent::Stream: return "stream " + l.stream + " op " + std::to_string(l.index);
    case StepLocator::Agent::Callback: return "callback " + std::to_string(l.index);
  }
  return "?";
}

StreamId stream_index(const Program& program, std::string_view name) {
  for (std::size_t i = 0; i < program.streams.size(); ++i)
    if (program.streams[i].name == name) return StreamId(i);
  return kNoStream;
}

void check_schedule_streams(const Schedule& s, const Program& program, const std::string& source) {
  for (std::size_t i = 0; i < s.delays.size(); ++i)
    for (const auto& [role, l] : {std::pair{"hold", &s.delays[i].hold}, std::pair{"until", &s.delays[i].until}}) {
      if (l->agent != StepLocator::Agent::Stream || stream_index(program, l->stream) != kNoStream) continue;
      std::string names;
      for (const StreamSpec& spec : program.streams) names += (names.empty() ? "" : ", ") + spec.name;
      fail(source, "delays[" + std::to_string(i) + "]." + role,
           "stream \"" + l->stream + "\" is not a stream of the program (its streams: " + names + ")");
    }
}

std::vector<StepHold> holds_of(const Schedule& s, const Program& program) {
  auto ref = [&](const StepLocator& l) {
    StepRef r;
    r.index = std::uint64_t(l.index);
    switch (l.agent) {
      case StepLocator::Agent::Host: r.agent = StepAgent::Host; break;
      case StepLocator::Agent::Stream: r.agent = StepAgent::Stream, r.stream = stream_index(program, l.stream); break;
      case StepLocator::Agent::Callback: r.agent = StepAgent::Callback; break;
    }
    return r;
  };
  std::vector<StepHold> out;
  for (const Delay& d : s.delays) out.push_back(StepHold{ref(d.hold), ref(d.until)});
  return out;
}

StepLocator locator_of(const StepRef& ref, const Program& program) {
  StepLocator l;
  l.index = std::int64_t(ref.index);
  switch (ref.agent) {
    case StepAgent::Host: l.agent = StepLocator::Agent::Host; break;
    case StepAgent::Stream:
      l.agent = StepLocator::Agent::Stream;
      l.stream = ref.stream >= 0 && std::size_t(ref.stream) < program.streams.size()
                     ? program.streams[std::size_t(ref.stream)].name
                     : "stream" + std::to_string(ref.stream);
      break;
    case StepAgent::Callback: l.agent = StepLocator::Agent::Callback; break;
  }
  return l;
}

}  // namespace allocsim
