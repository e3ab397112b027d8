// Well-known `--set` keys: scenario-independent knobs (seed, semaphore, device, platform) and the
// keys owned by policies. The lists are exported for the CLI (loader.h); the platform keys are
// core/platform.h's kPlatformFields.
#include "param_keys.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "allocsim/core/seeds.h"
#include "allocsim/scenarios/loader.h"

namespace allocsim {

const std::vector<std::string>& well_known_param_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = {"seed", "semaphore", "memory_limit", "allow_growth",
                                  "gc", "fragmentation_fraction", "private_pool_limit"};
    for (const PlatformField& f : kPlatformFields) k.emplace_back(f.name);
    return k;
  }();
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

void apply_well_known(Scenario& s, const std::string& key, double v) {
  if (const PlatformField* f = find_platform_field(key)) {
    if (std::string why = set_platform_field(s.platform, *f, v); !why.empty())
      throw ScenarioError("--set", 0, 0, why);
  } else if (key == "seed") {
    if (!(v >= 0) || v > double(seeds::kMax) || v != std::floor(v))
      bad_value(key, v, "a whole number from 0 to 2^53");
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
  }
}

}  // namespace

bool is_well_known_key(const std::string& key) { return contains(well_known_param_keys(), key); }
bool is_policy_key(const std::string& key) { return contains(policy_param_keys(), key); }

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

void check_set_keys(const Params& overrides, const std::vector<std::string>& own) {
  for (const auto& [key, value] : overrides.all()) {
    if (contains(own, key) || is_well_known_key(key) || is_policy_key(key)) continue;
    std::string msg = "--set " + key + ": unknown parameter; this scenario accepts:";
    if (own.empty()) msg += " (no params)";
    for (const auto& k : own) msg += " " + k;
    msg += "; well-known:";
    for (const auto& k : well_known_param_keys()) msg += " " + k;
    msg += "; policy:";
    for (const auto& k : policy_param_keys()) msg += " " + k;
    throw ScenarioError("--set", 0, 0, msg);
  }
}

}  // namespace scenario_detail
}  // namespace allocsim
