// The summary of a sample set and its file forms (see sample_summary.h).
#include "allocsim/results/sample_summary.h"

#include <boost/json.hpp>
#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <sstream>

#include "allocsim/results/result_json.h"
#include "report_format.h"

namespace allocsim {
namespace json = boost::json;

std::pair<double, double> binomial_interval(int k, int n) {
  if (n <= 0) return {0, 1};
  using boost::math::binomial_distribution;
  const double alpha = 0.05 / 2;
  return {binomial_distribution<>::find_lower_bound_on_p(n, k, alpha, binomial_distribution<>::clopper_pearson_exact_interval),
          binomial_distribution<>::find_upper_bound_on_p(n, k, alpha, binomial_distribution<>::clopper_pearson_exact_interval)};
}

json::object rate_to_json(int k, int n) {
  const auto [lo, hi] = binomial_interval(k, n);
  return {{"samples_with_manifest", k}, {"probability", n > 0 ? double(k) / n : 0.0}, {"low", lo}, {"high", hi}};
}

json::object quantiles_to_json(const SampleQuantiles& q) {
  return {{"median", q.median}, {"p95", q.p95}, {"max", q.max}};
}

namespace {

/// Reads the keys of one object, remembering the first one missing or ill-typed.
struct Reader {
  std::string missing;
  const json::value* at(const json::object& o, const char* key) {
    auto it = o.find(key);
    if (it == o.end() && missing.empty()) missing = key;
    return it == o.end() ? nullptr : &it->value();
  }
  template <class T>
  void num(const json::object& o, const char* key, T& out) {
    const json::value* v = at(o, key);
    if (v && v->is_int64() && v->as_int64() >= 0) out = static_cast<T>(v->as_int64());
    else if (v && v->is_uint64()) out = static_cast<T>(v->as_uint64());
    else if (v && missing.empty()) missing = key;
  }
  void str(const json::object& o, const char* key, std::string& out) {
    const json::value* v = at(o, key);
    if (v && v->is_string()) out = std::string(v->as_string());
    else if (v && missing.empty()) missing = key;
  }
  const json::object* obj(const json::object& o, const char* key) {
    const json::value* v = at(o, key);
    if (v && v->is_object()) return &v->as_object();
    if (v && missing.empty()) missing = key;
    return nullptr;
  }
  void quantiles(const json::object& o, const char* key, SampleQuantiles& q) {
    if (const json::object* d = obj(o, key)) num(*d, "median", q.median), num(*d, "p95", q.p95), num(*d, "max", q.max);
  }
};

}  // namespace

json::object summary_to_json(const SampleSummary& s) {
  json::object o;
  o["scenario"] = s.scenario;
  o["policy"] = s.policy;
  o["guard"] = s.guard;
  o["semaphore"] = s.semaphore;
  o["first_seed"] = s.first_seed;
  o["samples"] = s.samples;
  o["executions"] = s.executions;
  json::array per;
  for (int k : s.manifest_by_execution) per.push_back(rate_to_json(k, s.samples));
  o["manifest_by_execution"] = std::move(per);
  o["samples_with_manifest"] = s.samples_with_manifest;
  o["manifest_any"] = rate_to_json(s.samples_with_manifest, s.samples);
  o["latent"] = quantiles_to_json(s.latent);
  o["peak_bytes_in_use"] = quantiles_to_json(s.peak_bytes_in_use);
  o["host_blocked_policy_ns"] = quantiles_to_json(s.host_blocked_policy_ns);
  o["makespan_ns"] = quantiles_to_json(s.makespan_ns);
  o["incomplete"] = s.incomplete;
  return o;
}

std::optional<SampleSummary> summary_from_json(const json::value& v, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<SampleSummary> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (!v.is_object()) return fail("a sample summary is not a JSON object");
  const json::object& o = v.as_object();
  SampleSummary s;
  Reader rd;
  rd.str(o, "scenario", s.scenario);
  rd.str(o, "policy", s.policy);
  rd.str(o, "guard", s.guard);
  rd.num(o, "semaphore", s.semaphore);
  rd.num(o, "first_seed", s.first_seed);
  rd.num(o, "samples", s.samples);
  rd.num(o, "executions", s.executions);
  rd.num(o, "samples_with_manifest", s.samples_with_manifest);
  if (const json::value* per = rd.at(o, "manifest_by_execution"); per && per->is_array())
    for (const json::value& e : per->as_array()) {
      int k = 0;
      if (e.is_object()) rd.num(e.as_object(), "samples_with_manifest", k);
      else if (rd.missing.empty()) rd.missing = "manifest_by_execution";
      s.manifest_by_execution.push_back(k);
    }
  else if (per && rd.missing.empty()) rd.missing = "manifest_by_execution";
  rd.quantiles(o, "latent", s.latent);
  rd.quantiles(o, "peak_bytes_in_use", s.peak_bytes_in_use);
  rd.quantiles(o, "host_blocked_policy_ns", s.host_blocked_policy_ns);
  rd.quantiles(o, "makespan_ns", s.makespan_ns);
  rd.num(o, "incomplete", s.incomplete);
  if (!rd.missing.empty()) return fail("sample summary: missing or ill-typed key '" + rd.missing + "'");
  if (s.samples < 1) return fail("sample summary: 'samples' must be at least 1");
  if (s.manifest_by_execution.size() != std::size_t(s.executions))
    return fail("sample summary: 'manifest_by_execution' does not have 'executions' entries");
  return s;
}

std::string samples_csv_text(const std::vector<SampleSummary>& points) {
  std::size_t executions = 0;  // one program per sweep, but a row never loses a column
  for (const auto& p : points) executions = std::max(executions, p.manifest_by_execution.size());
  std::vector<std::string> header = {"scenario", "policy", "guard", "semaphore", "first_seed", "samples",
                                     "executions", "incomplete"};
  auto rate_columns = [&](const std::string& prefix) {
    for (const char* c : {"samples_with_manifest", "probability", "low", "high"}) header.push_back(prefix + "." + c);
  };
  rate_columns("manifest_any");
  for (std::size_t e = 0; e < executions; ++e) rate_columns("manifest_execution_" + std::to_string(e));
  for (const char* d : {"latent", "peak_bytes_in_use", "host_blocked_policy_ns", "makespan_ns"})
    for (const char* q : {"median", "p95", "max"}) header.push_back(std::string(d) + "." + q);

  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) os << (i ? "," : "") << csv_field(cells[i]);
    os << '\n';
  };
  line(header);
  for (const auto& p : points) {
    std::vector<std::string> row = {p.scenario,
                                    p.policy,
                                    p.guard,
                                    std::to_string(p.semaphore),
                                    std::to_string(p.first_seed),
                                    std::to_string(p.samples),
                                    std::to_string(p.executions),
                                    std::to_string(p.incomplete)};
    auto rate = [&](int k) {
      const auto [lo, hi] = binomial_interval(k, p.samples);
      row.insert(row.end(), {std::to_string(k), results::detail::fixed(double(k) / p.samples, 6),
                             results::detail::fixed(lo, 6), results::detail::fixed(hi, 6)});
    };
    rate(p.samples_with_manifest);
    for (std::size_t e = 0; e < executions; ++e)
      if (e < p.manifest_by_execution.size()) rate(p.manifest_by_execution[e]);
      else row.insert(row.end(), 4, "");
    for (const SampleQuantiles* q : {&p.latent, &p.peak_bytes_in_use, &p.host_blocked_policy_ns, &p.makespan_ns})
      row.insert(row.end(), {std::to_string(q->median), std::to_string(q->p95), std::to_string(q->max)});
    line(row);
  }
  return os.str();
}

}  // namespace allocsim
