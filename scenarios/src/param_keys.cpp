// Well-known `--set` keys: scenario-independent knobs (seed, semaphore, device, platform) and the
// keys owned by policies. The lists are exported for the CLI (loader.h).
#include "param_keys.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "allocsim/scenarios/loader.h"

namespace allocsim {

const std::vector<std::string>& well_known_param_keys() {
  static const std::vector<std::string> keys = {
      "seed", "semaphore", "memory_limit", "allow_growth", "gc", "fragmentation_fraction",
      "private_pool_limit", "launch_overhead_ns", "event_record_ns", "event_query_ns", "stream_wait_ns",
      "callback_enqueue_ns", "callback_latency_ns", "callback_run_ns", "host_alloc_ns", "host_free_ns",
      "sync_wakeup_ns", "spin_ns_per_cycle"};
  return keys;
}

const std::vector<std::string>& policy_param_keys() {
  static const std::vector<std::string> keys = declared_param_keys();  // each policy's registration owns its keys
  return keys;
}

namespace scenario_detail {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& k) {
  return std::find(v.begin(), v.end(), k) != v.end();
}

[[noreturn]] void bad_value(const std::string& key, double value, const std::string& expected) {
  throw ScenarioError("--set", 0, 0, key + "=" + std::to_string(value) + ": expected " + expected);
}

std::uint64_t as_bytes(const std::string& key, double v) {
  if (!(v >= 1) || v > 281474976710656.0 || v != std::floor(v))
    bad_value(key, v, "a whole number of bytes between 1 and 2^48");
  return static_cast<std::uint64_t>(v);
}

TimeNs as_ns(const std::string& key, double v) {
  if (!(v >= 0) || v > 1e15 || v != std::floor(v)) bad_value(key, v, "a whole number of nanoseconds >= 0");
  return static_cast<TimeNs>(v);
}

}  // namespace

bool is_well_known_key(const std::string& key) { return contains(well_known_param_keys(), key); }
bool is_policy_key(const std::string& key) { return contains(policy_param_keys(), key); }

void apply_well_known(Scenario& s, const std::string& key, double v) {
  PlatformProfile& p = s.platform;
  if (key == "seed") {
    if (!(v >= 0) || v > 9007199254740992.0 || v != std::floor(v)) bad_value(key, v, "a whole number >= 0");
    s.seed = static_cast<std::uint64_t>(v);
  } else if (key == "semaphore") {
    if (!(v >= 1) || v > 1e6 || v != std::floor(v)) bad_value(key, v, "a whole number between 1 and 1000000");
    s.semaphore = static_cast<int>(v);
  } else if (key == "memory_limit") {
    s.device.memory_limit = as_bytes(key, v);
  } else if (key == "private_pool_limit") {
    s.device.private_pool_limit = as_bytes(key, v);
  } else if (key == "allow_growth") {
    s.device.allow_growth = v != 0;
  } else if (key == "gc") {
    s.device.garbage_collection = v != 0;
  } else if (key == "fragmentation_fraction") {
    if (!(v >= 0 && v <= 1)) bad_value(key, v, "a fraction between 0 and 1");
    s.device.fragmentation_fraction = v;
  } else if (key == "spin_ns_per_cycle") {
    if (!(v > 0 && v < 1e6)) bad_value(key, v, "a positive number");
    p.spin_ns_per_cycle = v;
  } else if (key == "launch_overhead_ns") { p.launch_overhead_ns = as_ns(key, v);
  } else if (key == "event_record_ns") { p.event_record_ns = as_ns(key, v);
  } else if (key == "event_query_ns") { p.event_query_ns = as_ns(key, v);
  } else if (key == "stream_wait_ns") { p.stream_wait_ns = as_ns(key, v);
  } else if (key == "callback_enqueue_ns") { p.callback_enqueue_ns = as_ns(key, v);
  } else if (key == "callback_latency_ns") { p.callback_latency_ns = as_ns(key, v);
  } else if (key == "callback_run_ns") { p.callback_run_ns = as_ns(key, v);
  } else if (key == "host_alloc_ns") { p.host_alloc_ns = as_ns(key, v);
  } else if (key == "host_free_ns") { p.host_free_ns = as_ns(key, v);
  } else if (key == "sync_wakeup_ns") { p.sync_wakeup_ns = as_ns(key, v);
  }
}

void apply_common_overrides(Scenario& s, const Params& overrides) {
  for (const auto& [key, value] : overrides.all()) {
    if (is_well_known_key(key)) {
      apply_well_known(s, key, value);
      s.params.set(key, value);
    } else if (is_policy_key(key)) {
      s.params.set(key, value);
    }
  }
}

void throw_unknown_set_key(const std::string& key, const std::string& scenario_keys) {
  std::string msg = "--set " + key + ": unknown parameter; this scenario accepts: " +
                    (scenario_keys.empty() ? std::string("(no params)") : scenario_keys) + "; well-known:";
  for (const auto& k : well_known_param_keys()) msg += " " + k;
  msg += "; policy:";
  for (const auto& k : policy_param_keys()) msg += " " + k;
  throw ScenarioError("--set", 0, 0, msg);
}

}  // namespace scenario_detail
}  // namespace allocsim
