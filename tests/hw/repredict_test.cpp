// allocsim-hw repredict against the committed sessions: with the sources the validating process
// itself used it gives that process's predictions back exactly (the same seeds, runs and draws),
// the committed repredicted folders are what it writes, and bad input is refused before anything
// is written.
#include <catch2/catch.hpp>

#include <boost/json.hpp>
#include <filesystem>
#include <unistd.h>

#include "allocsim/hw/repredict.h"
#include "test_inputs.h"

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace allocsim;

namespace {

json::value read_json(const fs::path& p) { return json::parse(test::read_text_file(p.string())); }

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("allocsim_repredict_" + name + "." + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

void repredict(const std::string& session, hw::PaceSource pace, hw::ReleaseSource release, const fs::path& out) {
  hw::RepredictOptions options;
  options.platform_file = "results/hw/" + session + "/calibration.json";
  options.pace = pace;
  options.release = release;
  hw::repredict_session("results/hw/" + session + "/per-execution", out.string(), options, [](const std::string&) {});
}

/// Every run's sim_repredicted under `out` equals its `key` prediction; returns the runs compared.
int check_same_as(const fs::path& out, const char* key) {
  int compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (e.path().filename() != "validate.json") continue;
    const json::value doc = read_json(e.path());
    for (const json::value& run : doc.at("runs").as_array()) {
      INFO(e.path().string() << " " << key);
      CHECK(run.at("sim_repredicted") == run.at(key));
      ++compared;
    }
  }
  return compared;
}

}  // namespace

TEST_CASE("repredict with the process's own sources gives its predictions back", "[hw][repredict]") {
  struct Case {
    hw::PaceSource pace;
    hw::ReleaseSource release;
    const char* key;
  };
  // h200-measured's files keep the process release's tail, so that prediction comes back exactly too.
  for (const Case& c : {Case{hw::PaceSource::kCalibration, hw::ReleaseSource::kCalibration, "sim"},
                        Case{hw::PaceSource::kTrials, hw::ReleaseSource::kCalibration, "sim_host_paced"},
                        Case{hw::PaceSource::kWarmup, hw::ReleaseSource::kCalibration, "sim_warmup_paced"},
                        Case{hw::PaceSource::kCalibration, hw::ReleaseSource::kProcess, "sim_process_release"}}) {
    const fs::path out = fresh_dir("same");
    repredict("h200-measured", c.pace, c.release, out);
    CHECK(check_same_as(out, c.key) == 8);
    const json::value top = read_json(out / "seed-repro" / "semaphore-32" / "validate.json");
    CHECK(top.at("repredicted").at("pace").as_string() == hw::pace_source_name(c.pace));
    CHECK(top.at("repredicted").at("release_tail").as_bool());
    fs::remove_all(out);
  }
}

TEST_CASE("the committed repredicted per-execution folders are what repredict writes", "[hw][repredict]") {
  for (const char* session : {"h200-process-release", "h200-warmup", "h200-warmup-2", "h200-measured", "h200-measured-2"})
    for (const auto& [pace, name] : {std::pair{hw::PaceSource::kTrials, "trials"}, std::pair{hw::PaceSource::kWarmup, "warmup"}}) {
      const fs::path committed = fs::path("results/hw") / session / ("repredicted-" + std::string(name) + "-process") / "per-execution";
      if (!fs::exists(committed)) continue;  // h200-process-release had no warm-up
      const fs::path out = fresh_dir("committed");
      repredict(session, pace, hw::ReleaseSource::kProcess, out);
      int files = 0;
      for (const auto& e : fs::recursive_directory_iterator(out)) {
        if (e.path().filename() != "validate.json") continue;
        INFO(e.path().string());
        CHECK(read_json(e.path()) == read_json(committed / fs::relative(e.path(), out)));
        ++files;
      }
      CHECK(files == 8);
      fs::remove_all(out);
    }
}

TEST_CASE("repredict refuses what it cannot predict, and writes nothing", "[hw][repredict]") {
  const fs::path out = fresh_dir("refused");
  hw::RepredictOptions options;
  options.platform_file = "results/hw/h200-warmup/calibration.json";
  auto run = [&](const std::string& src) { hw::repredict_session(src, out.string(), options, [](const std::string&) {}); };
  // Another session's calibration: its profile is not the files'.
  CHECK_THROWS_WITH(run("results/hw/h200-measured/per-execution"), Catch::Contains("its platform profile is not"));
  // A session before validate timed the release: no process_release to draw from.
  options.platform_file = "results/hw/h200-release-2/calibration.json";
  CHECK_THROWS_WITH(run("results/hw/h200-release-2/per-execution"), Catch::Contains("no process_release"));
  // No warm-up in it.
  options.platform_file = "results/hw/h200-process-release/calibration.json";
  options.pace = hw::PaceSource::kWarmup;
  CHECK_THROWS_WITH(run("results/hw/h200-process-release/per-execution"), Catch::Contains("no warmup pace measured"));
  CHECK_THROWS_WITH(run("tests/hw"), Catch::Contains("no validate.json below it"));
  CHECK(!fs::exists(out));
}
