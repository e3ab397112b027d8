// results/explore/ is generated (scripts/explore_results.sh) and committed. This keeps it honest:
// each exploration gave the answer its name promises, its README row says what its JSON says, and
// the committed witness still replays in the simulator as recorded (a model change that is not
// re-run fails here).
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "allocsim/engine/execution_units.h"
#include "allocsim/results/resolve.h"
#include "allocsim/results/runner.h"
#include "allocsim/results/schedule_run.h"

using namespace allocsim;

namespace {

const std::filesystem::path kResults = std::filesystem::path(ALLOCSIM_SOURCE_DIR) / "results" / "explore";

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("results/explore: every exploration gave its expected answer, and the README says so", "[explore]") {
  const std::string readme = read(kResults / "README.md");
  int explorations = 0;
  for (const auto& e : std::filesystem::directory_iterator(kResults)) {
    const std::string name = e.path().stem().string();
    if (e.path().extension() != ".json" || name.starts_with("witness")) continue;
    INFO(name);
    ++explorations;
    const boost::json::object d = boost::json::parse(read(e.path())).as_object();
    const std::string verdict(d.at("verdict").as_string());
    const bool free = name.starts_with("proof-") || name.starts_with("pruning-") || name.ends_with("-fixed1") ||
                      name == "case-last-use-stream-stream-aware";
    if (free) {
      CHECK(verdict.starts_with("race-free and deadlock-free up to " + std::to_string(d.at("bound").as_int64())));
      CHECK(d.at("complete").as_bool());
    } else if (name.ends_with("-fixed0")) {
      CHECK(verdict.starts_with("deadlock found"));
    } else if (name == "find-seed-repro-immediate-none") {
      CHECK(verdict.starts_with("manifest race in execution 2 found with"));
    } else {
      CHECK(verdict.find("race found") != std::string::npos);
    }
    if (name.starts_with("pruning-"))  // the measure: 100x fewer than plain enumeration
      CHECK(d.at("plain_estimate").to_number<double>() >= 100.0 * double(d.at("schedules").to_number<std::uint64_t>()));
    // Its README row: name, schedules and verdict as the JSON has them.
    const std::string row_start = "| `" + name + "` |";
    const std::size_t at = readme.find(row_start);
    REQUIRE(at != std::string::npos);
    const std::string row = readme.substr(at, readme.find('\n', at) - at);
    CHECK(row.find("| " + std::to_string(d.at("schedules").to_number<std::uint64_t>()) + " |") != std::string::npos);
    CHECK(row.find("| " + verdict + " |") != std::string::npos);
  }
  CHECK(explorations >= 16);
}

TEST_CASE("results/explore: the committed seed-repro witness still corrupts execution 2 when replayed", "[explore]") {
  RunConfig c;
  const Schedule s = apply_schedule((kResults / "witness-seed-repro-execution-2.json").string(), c);
  const Scenario scenario = load_for_run(c);
  const ExecutionUnits units = execution_units(scenario.program);
  const RunResult timed = run_one(scenario, c, {}, [](SimOptions& o) { o.max_findings = 1 << 20; });
  CHECK_FALSE(manifest_units(units, timed.findings).count(2));
  const RunResult replay = run_one(scenario, c, {}, [&](SimOptions& o) {
    o.holds = holds_of(s, scenario.program);
    o.max_findings = 1 << 20;
  });
  CHECK(manifest_units(units, replay.findings).count(2) == 1);
}

TEST_CASE("results/hw/h200-explore: the forced witness corrupts execution 2 on the H200 as the replay does", "[explore]") {
  const std::filesystem::path dir = std::filesystem::path(ALLOCSIM_SOURCE_DIR) / "results" / "hw" / "h200-explore";
  const boost::json::object v = boost::json::parse(read(dir / "validate" / "validate.json")).as_object();
  const boost::json::object& forced = v.at("schedule").as_object().at("forced").as_object();
  const boost::json::object& unforced = v.at("runs").as_array().at(0).as_object();
  auto at = [](const boost::json::object& o, const char* key, std::size_t i) {
    return o.at(key).as_array().at(i).to_number<int>();
  };
  const int trials = forced.at("trials").to_number<int>();
  const boost::json::object& replay = forced.at("sim").as_object();
  // The README's table, row by row.
  const std::string readme = read(dir / "README.md");
  CHECK(trials == 50);
  CHECK(at(forced, "corrupted_by_execution", 2) == 50);
  CHECK(at(replay, "manifest_by_execution", 2) == 50);
  CHECK(replay.at("runs").to_number<int>() == 50);
  CHECK(at(unforced, "corrupted_by_execution", 2) == 0);
  CHECK(at(unforced.at("sim").as_object(), "manifest_by_execution", 2) == 0);
  CHECK(at(forced, "corrupted_by_execution", 3) == 1);
  CHECK(at(replay, "manifest_by_execution", 3) == 0);
  CHECK(at(forced, "corrupted_by_execution", 0) == 0);
  CHECK(at(unforced, "corrupted_by_execution", 0) == 50);
  for (const auto& d : forced.at("delays").as_array()) CHECK(d.as_object().at("timed_out_trials").as_array().empty());
  CHECK(readme.find("| H200, delays forced | 50/50 |") != std::string::npos);
  CHECK(readme.find("| H200, not forced | 0/50 |") != std::string::npos);
}
