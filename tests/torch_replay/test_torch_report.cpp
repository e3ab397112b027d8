// PyTorch's own figures travel from the trace to the report: Scenario::reference_max_* -> RunResult
// (run_one) -> result JSON / CSV (extra columns after the section-6 ones) -> results.json read back
// -> report.md's summary table, which sets each policy's peak pool beside max_memory_reserved.
// The replay's race caveat travels with them into RunResult::warnings.
#include <catch2/catch.hpp>

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <vector>

#include "allocsim/results/report.h"
#include "allocsim/results/result_json.h"
#include "allocsim/results/runner.h"
#include "allocsim/results/sweep_record.h"
#include "allocsim/scenarios/loader.h"
#include "test_inputs.h"

using namespace allocsim;

namespace {

std::string mlp_trace() { return allocsim::test::require_data("torch_traces/mlp_adamw.json.gz"); }

RunResult fake_run(const std::string& scenario, const std::string& policy, std::uint64_t pool_mib,
                   std::uint64_t reserved_mib) {
  RunResult r;
  r.scenario = scenario;
  r.policy = policy;
  r.guard = "none";
  r.semaphore = 32;
  r.seed = 1;
  r.peak_live_bytes = 100ull << 20;
  r.peak_bytes_in_use = 100ull << 20;
  r.peak_pool_bytes = pool_mib << 20;
  r.reference_max_allocated = 90ull << 20;
  r.reference_max_reserved = reserved_mib << 20;
  return r;
}

}  // namespace

TEST_CASE("run_one carries the trace's max_memory_allocated / max_memory_reserved and race caveat", "[torch][report]") {
  const Scenario s = load_scenario(mlp_trace());
  REQUIRE(s.reference_max_reserved > 0);
  RunConfig c;
  c.policy = "immediate";
  c.guard = "none";
  const RunResult r = run_one(s, c);
  CHECK(r.reference_max_allocated == s.reference_max_allocated);
  CHECK(r.reference_max_reserved == s.reference_max_reserved);
  // and says its race counts are no evidence
  REQUIRE(!s.race_caveat.empty());
  CHECK(std::count(r.warnings.begin(), r.warnings.end(), s.race_caveat) == 1);
  // a built-in has none of these
  const RunResult b = run_one(load_scenario("seed-repro"), c);
  CHECK(b.reference_max_reserved == 0);
  CHECK(b.reference_max_allocated == 0);
  CHECK(std::count(b.warnings.begin(), b.warnings.end(), s.race_caveat) == 0);
}

TEST_CASE("reference figures are extra JSON keys and CSV columns after the section-6 ones", "[torch][report]") {
  RunResult r = fake_run("torch:x", "immediate", 128, 96);
  const auto& cols = result_columns();
  auto pos = [&](const std::string& name) { return std::find(cols.begin(), cols.end(), name) - cols.begin(); };
  CHECK(pos("reference.max_memory_reserved") < long(cols.size()));
  CHECK(pos("reference.max_memory_allocated") > pos("counts.fallbacks"));
  CHECK(pos("reference.max_memory_reserved") > pos("counts.fallbacks"));
  const auto row = result_row(r);
  CHECK(row[std::size_t(pos("reference.max_memory_reserved"))] == std::to_string(96ull << 20));
  const auto o = result_to_json(r);
  CHECK(o.at("reference").at("max_memory_allocated").to_number<std::uint64_t>() == (90ull << 20));
  // the sweep's record round-trips them
  auto back = results::run_result_from_json(results::run_result_json(r));
  REQUIRE(back);
  CHECK(back->reference_max_reserved == r.reference_max_reserved);
  CHECK(back->reference_max_allocated == r.reference_max_allocated);
}

TEST_CASE("the report sets each policy's peak pool beside PyTorch's max_memory_reserved", "[torch][report]") {
  results::ReportInput in;
  in.spec.scenario = "torch:x";
  in.spec.policies = {"immediate", "stream-aware"};
  in.spec.guards = {"none"};
  in.spec.semaphores = {32};
  in.runs = {fake_run("torch:x", "immediate", 128, 64), fake_run("torch:x", "stream-aware", 96, 64)};
  const std::string md = results::render_report_markdown(in, {{}, "disabled"});
  CHECK(md.find("PyTorch max reserved MiB") != std::string::npos);
  CHECK(md.find("peak pool ÷ PyTorch reserved") != std::string::npos);
  CHECK(md.find("`max_memory_reserved` 64.00 MiB") != std::string::npos);
  CHECK(md.find("`max_memory_allocated` 90.00 MiB") != std::string::npos);
  CHECK(md.find("2.000×") != std::string::npos);  // 128 / 64
  CHECK(md.find("1.500×") != std::string::npos);  // 96 / 64
}

TEST_CASE("a scenario without reference figures gets no PyTorch columns", "[torch][report]") {
  results::ReportInput in;
  in.spec.policies = {"immediate"};
  in.spec.guards = {"none"};
  in.spec.semaphores = {32};
  in.runs = {fake_run("plain", "immediate", 128, 0)};
  const std::string md = results::render_report_markdown(in, {{}, "disabled"});
  CHECK(md.find("PyTorch") == std::string::npos);
  CHECK(md.find("peak pool MiB") != std::string::npos);
}
