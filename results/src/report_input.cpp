// Reading a sweep folder for the report (results.json, memory_series.json) and writing the
// memory-series file the sweep records (see report.h).
#include <algorithm>
#include <boost/json.hpp>

#include "allocsim/results/report.h"
#include "allocsim/results/sweep_record.h"
#include "report_model.h"
#include "sweep_files.h"

namespace allocsim::results {
namespace json = boost::json;

namespace {

SweepSpec spec_from_json(const json::object& o) {
  SweepSpec s;
  auto str_list = [&](const char* key, std::vector<std::string>& out) {
    if (auto it = o.find(key); it != o.end() && it->value().is_array())
      for (const auto& v : it->value().as_array())
        if (v.is_string()) out.emplace_back(v.as_string());
  };
  if (auto it = o.find("scenario"); it != o.end() && it->value().is_string()) s.scenario = it->value().as_string();
  str_list("policies", s.policies);
  str_list("guards", s.guards);
  if (auto it = o.find("semaphores"); it != o.end() && it->value().is_array())
    for (const auto& v : it->value().as_array())
      if (v.is_int64()) s.semaphores.push_back(static_cast<int>(v.as_int64()));
  if (auto it = o.find("seeds"); it != o.end() && it->value().is_int64()) s.seeds = static_cast<int>(it->value().as_int64());
  if (auto it = o.find("base_seed"); it != o.end()) {
    if (it->value().is_int64()) s.base_seed = static_cast<std::uint64_t>(it->value().as_int64());
    else if (it->value().is_uint64()) s.base_seed = it->value().as_uint64();
  }
  if (auto it = o.find("executions"); it != o.end() && it->value().is_int64())
    s.executions = static_cast<int>(it->value().as_int64());
  if (auto it = o.find("platform"); it != o.end() && it->value().is_string()) s.platform = it->value().as_string();
  if (auto it = o.find("samples"); it != o.end() && it->value().is_int64())
    s.samples = static_cast<int>(it->value().as_int64());
  if (auto it = o.find("set"); it != o.end() && it->value().is_array())
    for (const auto& kv : it->value().as_array())
      if (kv.is_array() && kv.as_array().size() == 2 && kv.as_array()[0].is_string() && kv.as_array()[1].is_string())
        s.sets.emplace_back(std::string(kv.as_array()[0].as_string()), std::string(kv.as_array()[1].as_string()));
  return s;
}

std::uint64_t as_u64(const json::value& v) {
  if (v.is_uint64()) return v.as_uint64();
  if (v.is_int64() && v.as_int64() >= 0) return static_cast<std::uint64_t>(v.as_int64());
  throw ReportError("memory_series.json: expected a non-negative integer");
}

MemorySeries series_from_json(const json::value& v) {
  if (!v.is_object()) throw ReportError("memory_series.json: not an object");
  const auto& o = v.as_object();
  MemorySeries s;
  try {
    s.guard = o.at("guard").as_string();
    s.semaphore = static_cast<int>(o.at("semaphore").as_int64());
    s.seed = as_u64(o.at("seed"));
    for (const auto& run : o.at("runs").as_array()) {
      const auto& r = run.as_object();
      std::vector<MemorySample> samples;
      for (const auto& row : r.at("samples").as_array()) {
        const auto& a = row.as_array();
        if (a.size() != 4) throw ReportError("memory_series.json: a sample is [t_ns, live, pending, in_use]");
        samples.push_back({a[0].as_int64(), as_u64(a[1]), as_u64(a[2]), as_u64(a[3])});
      }
      s.runs.emplace_back(std::string(r.at("policy").as_string()), std::move(samples));
    }
  } catch (const std::exception& e) {
    throw ReportError(std::string("memory_series.json: malformed (") + e.what() + ")");
  }
  return s;
}

}  // namespace

ReportInput read_report_input(const std::filesystem::path& dir) {
  auto text = detail::read_whole_file(dir / "results.json");
  if (!text) throw ReportError("report: cannot read " + (dir / "results.json").string() + " (run `allocsim sweep` first)");
  boost::system::error_code ec;
  json::value v = json::parse(*text, ec);
  if (ec || !v.is_object()) throw ReportError("report: " + (dir / "results.json").string() + " is not a JSON object");
  const auto& o = v.as_object();
  ReportInput in;
  if (auto it = o.find("sweep"); it != o.end() && it->value().is_object()) in.spec = spec_from_json(it->value().as_object());
  auto runs = o.find("runs");
  if (runs == o.end() || !runs->value().is_array())
    throw ReportError("report: " + (dir / "results.json").string() + " has no \"runs\" array");
  std::size_t i = 0;
  for (const auto& r : runs->value().as_array()) {
    std::string why;
    auto run = run_result_from_value(r, &why);
    if (!run) throw ReportError("report: results.json run " + std::to_string(i) + ": " + why);
    in.runs.push_back(std::move(*run));
    ++i;
  }
  // A sampled sweep's points (sweep_sampled.h); absent in an unsampled sweep's results.
  if (auto points = o.find("samples"); points != o.end()) {
    if (!points->value().is_array())
      throw ReportError("report: " + (dir / "results.json").string() + ": \"samples\" is not an array");
    for (const auto& p : points->value().as_array()) {
      std::string why;
      auto summary = summary_from_json(p, &why);
      if (!summary) throw ReportError("report: results.json samples " + std::to_string(in.samples.size()) + ": " + why);
      in.samples.push_back(std::move(*summary));
    }
  }
  if (auto series = detail::read_whole_file(dir / "memory_series.json")) {
    json::value sv = json::parse(*series, ec);
    if (ec) throw ReportError("report: memory_series.json is not JSON");
    in.series = series_from_json(sv);
    in.has_series = true;
  }
  return in;
}

std::string memory_series_json(const MemorySeries& s) {
  std::string out = "{\"guard\":" + json::serialize(json::value(s.guard)) + ",\"semaphore\":" +
                    std::to_string(s.semaphore) + ",\"seed\":" + std::to_string(s.seed) + ",\"runs\":[\n";
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    out += "{\"policy\":" + json::serialize(json::value(s.runs[i].first)) + ",\"samples\":[";
    const auto& samples = s.runs[i].second;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const auto& x = samples[k];
      out += (k ? "," : "") + std::string("[") + std::to_string(x.t) + "," + std::to_string(x.live) + "," +
             std::to_string(x.pending) + "," + std::to_string(x.in_use) + "]";
    }
    out += std::string("]}") + (i + 1 < s.runs.size() ? ",\n" : "\n");
  }
  return out + "]}\n";
}

std::vector<MemorySample> downsample(const std::vector<MemorySample>& samples, std::size_t max_points) {
  if (samples.size() <= max_points || max_points < 2) return samples;
  const std::int64_t t0 = samples.front().t, t1 = samples.back().t;
  const std::size_t buckets = max_points - 1;  // the last sample is always kept
  std::vector<MemorySample> out;
  std::size_t i = 0;
  for (std::size_t b = 0; b < buckets && i + 1 < samples.size(); ++b) {
    // bucket b covers [t0 + span*b/buckets, t0 + span*(b+1)/buckets)
    const long double span = static_cast<long double>(t1 - t0);
    const auto end = t0 + static_cast<std::int64_t>(span * (b + 1) / buckets);
    const MemorySample* best = nullptr;
    for (; i + 1 < samples.size() && (samples[i].t < end || b + 1 == buckets); ++i)
      if (!best || samples[i].in_use > best->in_use) best = &samples[i];
    if (best) out.push_back(*best);
  }
  out.push_back(samples.back());
  return out;
}

std::string pick_plot_guard(const ReportInput& in) {
  auto models = detail::build_models(in);
  if (models.empty() || models.front().guards.empty()) return "none";
  const auto& m = models.front();
  std::string best;
  int best_count = -1;
  for (const auto& g : m.guards) {
    int count = 0;
    for (const auto& o : m.options) count += o.guard == g && o.race_free;
    if (count > best_count) best = g, best_count = count;
  }
  return best;
}

}  // namespace allocsim::results
