// The registry of free policies and guards: what each policy or guard file added with
// ALLOCSIM_REGISTER_POLICY / ALLOCSIM_REGISTER_GUARD, kept sorted by its order key, and the
// declared parameters' defaults and checks (ParamSpec).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "allocsim/policies/registration.h"

namespace allocsim {
namespace {

template <class Factory>
struct Entry {
  int order;
  RegistryEntry entry;
  Factory make;
};

template <class Factory>
using Table = std::vector<Entry<Factory>>;

// Function-local statics: the registering initialisers in other files may run before any
// namespace-scope table here would be constructed. They are written only during static
// initialisation (one thread) and only read afterwards, so concurrent runs need no lock.
Table<registry_detail::PolicyFactory>& policies() {
  static Table<registry_detail::PolicyFactory> table;
  return table;
}
Table<registry_detail::GuardFactory>& guards() {
  static Table<registry_detail::GuardFactory> table;
  return table;
}

// Written so that NaN fails every comparison and is rejected.
bool accepts(const ParamSpec& spec, double v) {
  return v >= spec.min && v <= spec.max && (!spec.whole || v == std::floor(v));
}

[[noreturn]] void registration_error(const std::string& message) {
  std::fprintf(stderr, "allocsim: bad registration: %s\n", message.c_str());
  std::abort();
}

bool same_spec(const ParamSpec& a, const ParamSpec& b) {
  return a.default_value == b.default_value && a.min == b.min && a.max == b.max && a.whole == b.whole &&
         a.description == b.description;
}

/// Policies and guards share one `--set` key space, so a key two of them read must mean one thing:
/// they declare the same spec (a shared constant, as policy_util.h has), never two versions.
template <class Factory>
void check_shared_keys(const Table<Factory>& table, std::string_view name, const ParamSpec& spec) {
  for (const auto& e : table)
    for (const ParamSpec& other : e.entry.params)
      if (other.key == spec.key && !same_spec(other, spec))
        registration_error("'" + std::string(name) + "' declares parameter " + std::string(spec.key) +
                           " differently from '" + e.entry.name + "'");
}

template <class Factory>
bool add(Table<Factory>& table, const char* kind, std::string_view name, Registration r, Factory make) {
  for (const auto& e : table)
    if (e.entry.name == name || e.order == r.order)
      registration_error(std::string(kind) + " '" + std::string(name) + "' (order " + std::to_string(r.order) +
                         ") clashes with '" + e.entry.name + "' (order " + std::to_string(e.order) + ")");
  for (const ParamSpec& spec : r.params) {
    if (!accepts(spec, spec.default_value))
      registration_error("'" + std::string(name) + "' parameter " + std::string(spec.key) +
                         ": default outside its own range");
    check_shared_keys(policies(), name, spec);
    check_shared_keys(guards(), name, spec);
  }
  const auto at = std::upper_bound(table.begin(), table.end(), r.order,
                                   [](int order, const auto& e) { return order < e.order; });
  table.insert(at, {r.order, {std::string(name), std::string(r.description), std::move(r.params)}, make});
  return true;
}

template <class Factory>
const Entry<Factory>* find(const Table<Factory>& table, std::string_view name) {
  for (const auto& e : table)
    if (e.entry.name == name) return &e;
  return nullptr;
}

/// Checks every declared parameter before the object is built, so a bad value is reported as
/// the policy's or guard's input error even when the parameter is read only later, mid-run.
void check_params(const RegistryEntry& entry, const char* kind, const Params& params) {
  for (const ParamSpec& spec : entry.params) {
    try {
      (void)spec.read(params);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(kind) + " " + entry.name + ": " + e.what());
    }
  }
}

template <class Factory>
std::vector<RegistryEntry> entries(const Table<Factory>& table) {
  std::vector<RegistryEntry> out;
  for (const auto& e : table) out.push_back(e.entry);
  return out;
}

/// Whole numbers below 1e12 in full (what one types after --set), anything else shortest.
std::string number_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e12) return std::to_string(std::int64_t(v));
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

}  // namespace

namespace registry_detail {

bool add_policy(std::string_view name, Registration registration, PolicyFactory make) {
  return add(policies(), "policy", name, std::move(registration), make);
}

bool add_guard(std::string_view name, Registration registration, GuardFactory make) {
  return add(guards(), "guard", name, std::move(registration), make);
}

}  // namespace registry_detail

double ParamSpec::read(const Params& params) const {
  const std::string k(key);
  if (!params.has(k)) return default_value;
  const double v = params.get(k, default_value);
  if (!accepts(*this, v)) throw std::invalid_argument(k + "=" + number_text(v) + ": expected " + range_text());
  return v;
}

std::string ParamSpec::range_text() const {
  std::string what = whole ? "a whole number" : "a number";
  if (std::isinf(max)) return what + " >= " + number_text(min);
  return what + " between " + number_text(min) + " and " + number_text(max);
}

std::string ParamSpec::default_text() const { return number_text(default_value); }

std::unique_ptr<FreePolicy> make_policy(std::string_view name, const Params& params) {
  const auto* e = find(policies(), name);
  if (!e) return nullptr;
  check_params(e->entry, "policy", params);
  return e->make(params);
}

std::unique_ptr<Guard> make_guard(std::string_view name, const Params& params) {
  const auto* e = find(guards(), name);
  if (!e) return nullptr;
  check_params(e->entry, "guard", params);
  return e->make(params);
}

std::vector<RegistryEntry> list_policies() { return entries(policies()); }
std::vector<RegistryEntry> list_guards() { return entries(guards()); }

std::vector<std::string> declared_param_keys() {
  std::vector<std::string> keys;
  auto collect = [&keys](const std::vector<RegistryEntry>& all) {
    for (const RegistryEntry& e : all)
      for (const ParamSpec& p : e.params)
        if (std::find(keys.begin(), keys.end(), p.key) == keys.end()) keys.emplace_back(p.key);
  };
  collect(list_policies());
  collect(list_guards());
  return keys;
}

}  // namespace allocsim
