// allocsim-hw repredict against the committed sessions: with the sources the validating process
// itself used it gives that process's predictions back exactly (the same seeds, runs and draws),
// the committed repredicted folders are what it writes, and bad input is refused before anything
// is written.
#include <catch2/catch.hpp>

#include <boost/json.hpp>
#include <filesystem>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <unistd.h>
#include <vector>

#include "allocsim/hw/host_pace_workload.h"
#include "allocsim/hw/repredict.h"
#include "allocsim/results/platform_io.h"
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

/// repredict over `points` (<scenario>/semaphore-<n>) of a session's per-execution pass, copied
/// into a folder of their own: the sanitizer build runs the simulator some 50 times slower than a
/// release build, so the tests take a few points rather than all 8 (each point is the same code).
void repredict(const std::string& session, const std::vector<std::string>& points, hw::PaceSource pace,
               hw::ReleaseSource release, const fs::path& out, int blocks = 0, bool check_sweep = false,
               std::vector<std::string> zeroed = {}) {
  const fs::path src = out.string() + ".src";
  fs::remove_all(src);
  for (const std::string& point : points) {
    fs::create_directories(src / point);
    fs::copy_file(fs::path("results/hw") / session / "per-execution" / point / "validate.json", src / point / "validate.json");
  }
  hw::RepredictOptions options;
  options.platform_file = "results/hw/" + session + "/calibration.json";
  options.pace = pace;
  options.release = release;
  options.blocks = blocks;
  options.check_sweep = check_sweep;
  options.zeroed = std::move(zeroed);
  hw::repredict_session(src.string(), out.string(), options, [](const std::string&) {});
  fs::remove_all(src);
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

namespace {

/// repredict of two points of `session` with each of the sources validate used gives validate's own
/// prediction back. Its own test case per session: the sanitizer build takes minutes for each.
void check_own_sources(const char* session, std::initializer_list<const char*> points) {
  struct Case {
    hw::PaceSource pace;
    hw::ReleaseSource release;
    const char* key;
  };
  for (const Case& c : {Case{hw::PaceSource::kCalibration, hw::ReleaseSource::kCalibration, "sim"},
                        Case{hw::PaceSource::kTrials, hw::ReleaseSource::kCalibration, "sim_host_paced"},
                        Case{hw::PaceSource::kWarmup, hw::ReleaseSource::kCalibration, "sim_warmup_paced"},
                        Case{hw::PaceSource::kCalibration, hw::ReleaseSource::kProcess, "sim_process_release"}}) {
    const fs::path out = fresh_dir("same");
    repredict(session, std::vector<std::string>(points.begin(), points.end()), c.pace, c.release, out);
    CHECK(check_same_as(out, c.key) == int(points.size()));
    const json::value top = read_json(out / *points.begin() / "validate.json");
    CHECK(top.at("repredicted").at("pace").as_string() == hw::pace_source_name(c.pace));
    CHECK(top.at("repredicted").at("release_tail").as_bool());
    fs::remove_all(out);
  }
}

}  // namespace

TEST_CASE("repredict with the process's own sources gives its predictions back", "[hw][repredict]") {
  // h200-measured's files keep the process release's tail, so that prediction comes back exactly too.
  check_own_sources("h200-measured", {"seed-repro/semaphore-32", "conv-autotune/semaphore-8"});
}

TEST_CASE("repredict with the process's own sources gives its predictions back, with the check sweep",
          "[hw][repredict]") {
  // h200-sweep's calibration has op_check_sweep 1: validate's predictions read with the check sweep,
  // here on conv-autotune alone, whose 8 MiB reads the sweep spreads most.
  check_own_sources("h200-sweep", {"conv-autotune/semaphore-8"});
}

namespace {

/// The committed repredicted-<pace>-process folders of `sessions` are what repredict writes:
/// conv-autotune at 8 where the folders differ most from the calibrated prediction's, seed-repro at
/// 32 elsewhere (the cheaper one; see repredict() above). Returns the folders compared.
int check_process_release_folders(std::initializer_list<const char*> sessions) {
  int folders = 0;
  for (const char* session : sessions)
    for (const auto& [pace, name] : {std::pair{hw::PaceSource::kTrials, "trials"}, std::pair{hw::PaceSource::kWarmup, "warmup"}}) {
      const fs::path committed = fs::path("results/hw") / session / ("repredicted-" + std::string(name) + "-process") / "per-execution";
      if (!fs::exists(committed)) continue;  // h200-process-release had no warm-up
      const std::string point = std::string(session) == "h200-process-release" || std::string(session) == "h200-warmup-2"
                                    ? "conv-autotune/semaphore-8"
                                    : "seed-repro/semaphore-32";
      const fs::path out = fresh_dir("committed");
      repredict(session, {point}, pace, hw::ReleaseSource::kProcess, out);
      INFO(committed.string() << " " << point);
      CHECK(read_json(out / point / "validate.json") == read_json(committed / point / "validate.json"));
      fs::remove_all(out);
      ++folders;
    }
  return folders;
}

}  // namespace

// Split in two: the sanitizer build takes most of ctest's 300 s for all of them.
TEST_CASE("the committed repredicted per-execution folders are what repredict writes", "[hw][repredict]") {
  CHECK(check_process_release_folders({"h200-process-release", "h200-warmup", "h200-warmup-2"}) == 5);
}

TEST_CASE("the committed repredicted per-execution folders of h200-measured and -2 are what repredict writes",
          "[hw][repredict]") {
  CHECK(check_process_release_folders({"h200-measured", "h200-measured-2"}) == 4);
}

namespace {

/// The committed repredicted-trials-trials and -process folders of `sessions` (seed-repro at 32) are
/// what repredict writes; returns the folders compared.
int check_trial_release_folders(std::initializer_list<const char*> sessions) {
  int folders = 0;
  for (const char* session : sessions)
    for (const auto& [release, name] : {std::pair{hw::ReleaseSource::kTrials, "trials"}, std::pair{hw::ReleaseSource::kProcess, "process"}}) {
      const fs::path committed = fs::path("results/hw") / session / ("repredicted-trials-" + std::string(name)) / "per-execution";
      const std::string point = "seed-repro/semaphore-32";
      const fs::path out = fresh_dir("committed-trials");
      repredict(session, {point}, hw::PaceSource::kTrials, release, out);
      INFO(committed.string() << " " << point);
      CHECK(read_json(out / point / "validate.json") == read_json(committed / point / "validate.json"));
      fs::remove_all(out);
      ++folders;
    }
  return folders;
}

}  // namespace

// Three test cases: the sanitizer build takes ctest's 300 s for all of them together.
TEST_CASE("the committed repredicted folders of the sessions that timed the release after each trial",
          "[hw][repredict]") {
  CHECK(check_trial_release_folders({"h200-trial-release", "h200-trial-release-2", "h200-trial-release-3"}) == 6);
}

TEST_CASE("the committed repredicted folders of h200-trial-release-4 and -5", "[hw][repredict]") {
  CHECK(check_trial_release_folders({"h200-trial-release-4", "h200-trial-release-5"}) == 4);
}

TEST_CASE("the committed repredicted folders of h200-sweep and -2", "[hw][repredict]") {
  CHECK(check_trial_release_folders({"h200-sweep", "h200-sweep-2"}) == 4);
}

TEST_CASE("the committed calibration-level repredictions of the pooled sessions are what repredict writes",
          "[hw][repredict]") {
  for (const char* session : {"h200-processes", "h200-processes-seed"}) {
    const std::string point = "seed-repro/semaphore-32/process-1";  // one process of the point that moved most
    const fs::path committed =
        fs::path("results/hw") / session / "repredicted-calibration-level" / "per-execution" / point / "validate.json";
    const fs::path out = fresh_dir("level");
    repredict(session, {point}, hw::PaceSource::kCalibrationLevel, hw::ReleaseSource::kCalibration, out);
    INFO(committed.string());
    const json::value written = read_json(out / point / "validate.json");
    CHECK(written == read_json(committed));
    CHECK(written.at("repredicted").at("pace").as_string() == "calibration-level");
    fs::remove_all(out);
  }
}

TEST_CASE("a calibration that records its host-pace level predicts with it: --pace calibration is calibration-level",
          "[hw][repredict]") {
  // What calibrate now writes: h200-processes' calibration with the level it computes.
  const std::string session = "h200-processes", point = "seed-repro/semaphore-32/process-1";
  const std::string calibration = "results/hw/" + session + "/calibration.json";
  PlatformSpread spread = load_platform_spread(calibration);
  spread.host_pace_level = hw::host_pace_level(load_platform_file(calibration), spread);
  const fs::path dir = fresh_dir("recorded-level");
  fs::create_directories(dir / "src" / point);
  fs::copy_file(fs::path("results/hw") / session / "per-execution" / point / "validate.json", dir / "src" / point / "validate.json");
  const std::string levelled = (dir / "calibration.json").string();
  save_platform_file(levelled, load_platform_file(calibration), spread);
  const json::value committed = read_json(fs::path("results/hw") / session / "repredicted-calibration-level" / "per-execution" /
                                          point / "validate.json");
  for (hw::PaceSource pace : {hw::PaceSource::kCalibration, hw::PaceSource::kCalibrationLevel}) {
    hw::RepredictOptions options;
    options.platform_file = levelled;
    options.pace = pace;
    options.release = hw::ReleaseSource::kCalibration;
    const fs::path out = dir / hw::pace_source_name(pace);
    hw::repredict_session((dir / "src").string(), out.string(), options, [](const std::string&) {});
    const json::value written = read_json(out / point / "validate.json");
    INFO(hw::pace_source_name(pace));
    CHECK(written.at("repredicted").at("host_pace_level") == committed.at("repredicted").at("host_pace_level"));
    REQUIRE(written.at("runs").as_array().size() == committed.at("runs").as_array().size());
    for (std::size_t i = 0; i < written.at("runs").as_array().size(); ++i)
      CHECK(written.at("runs").as_array()[i].at("sim_repredicted") == committed.at("runs").as_array()[i].at("sim_repredicted"));
  }
  fs::remove_all(dir);
}

TEST_CASE("the host-pace level: the calibrating process's host time on the workload over the simulator's",
          "[hw][repredict]") {
  const std::string file = "results/hw/h200-processes/calibration.json";
  const PlatformProfile profile = load_platform_file(file);
  PlatformSpread spread = load_platform_spread(file);
  const double level = hw::host_pace_level(profile, spread, 50);
  // This session's calibration charged the workload more host time than its process took.
  CHECK(level > 0.7);
  CHECK(level < 0.9);
  // The level is the reference over a simulated time that does not depend on the reference, nor on
  // the host pace (which it is measured without).
  spread.host_pace_reference_ns *= 2;
  for (double& q : spread.host_pace) q *= 3;
  CHECK(hw::host_pace_level(profile, spread, 50) == Approx(2 * level).epsilon(1e-12));
  spread.host_pace_reference_ns = 0;  // calibrated before the reference was recorded
  CHECK_THROWS_AS(hw::host_pace_level(profile, spread, 50), std::invalid_argument);
}

TEST_CASE("repredict --check-sweep: the check pass's read order on a session calibrated before the switch",
          "[hw][repredict]") {
  // conv-autotune at 32: its autotuner scratch executions (3, 7, 11) are read by 8 MiB check passes
  // that compute kernels write into (results/hw/h200-warmup/analysis.md, execution by execution).
  const std::string point = "conv-autotune/semaphore-32";
  const fs::path at_end = fresh_dir("at-end"), swept = fresh_dir("swept");
  repredict("h200-trial-release-5", {point}, hw::PaceSource::kCalibration, hw::ReleaseSource::kCalibration, at_end);
  repredict("h200-trial-release-5", {point}, hw::PaceSource::kCalibration, hw::ReleaseSource::kCalibration, swept, 0, true);
  const json::value a = read_json(at_end / point / "validate.json"), b = read_json(swept / point / "validate.json");
  const json::value& run_a = a.at("runs").at(0);
  CHECK(run_a.at("sim_repredicted") == run_a.at("sim"));  // without it, the session's own prediction
  CHECK(!a.at("repredicted").as_object().contains("check_sweep"));
  CHECK(b.at("repredicted").at("check_sweep").as_bool());
  const json::array& before = run_a.at("sim_repredicted").at("manifest_by_execution").as_array();
  const json::array& after = b.at("runs").at(0).at("sim_repredicted").at("manifest_by_execution").as_array();
  REQUIRE(before.size() == after.size());
  int fewer = 0;
  for (std::size_t k : {3, 7, 11}) fewer += after[k].to_number<int>() < before[k].to_number<int>();
  CHECK(fewer == 3);
  fs::remove_all(at_end);
  fs::remove_all(swept);
}

TEST_CASE("repredict in blocks: one block of every trial is the prediction from all of them", "[hw][repredict]") {
  const std::string point = "seed-repro/semaphore-32";
  const fs::path pooled = fresh_dir("pooled"), one_block = fresh_dir("one-block"), blocks = fresh_dir("blocks");
  repredict("h200-trial-release", {point}, hw::PaceSource::kTrials, hw::ReleaseSource::kTrials, pooled);
  repredict("h200-trial-release", {point}, hw::PaceSource::kTrials, hw::ReleaseSource::kTrials, one_block, 400);
  repredict("h200-trial-release", {point}, hw::PaceSource::kTrials, hw::ReleaseSource::kTrials, blocks, 40);
  const json::value a = read_json(pooled / point / "validate.json"), b = read_json(one_block / point / "validate.json"),
                    c = read_json(blocks / point / "validate.json");
  const json::value& pooled_sim = a.at("runs").at(0).at("sim_repredicted");
  CHECK(pooled_sim == b.at("runs").at(0).at("sim_repredicted"));
  CHECK(b.at("repredicted").at("blocks").to_number<int>() == 400);
  // Blocks of 40: the same pace reported (all the trials'), other draws. On this point the host's
  // pace moved from block to block (1.08-1.48 over the trials' medians in blocks of 40).
  const json::value& blocked_sim = c.at("runs").at(0).at("sim_repredicted");
  CHECK(blocked_sim.at("host_pace") == pooled_sim.at("host_pace"));
  CHECK(blocked_sim.at("manifest_by_execution") != pooled_sim.at("manifest_by_execution"));
  for (const fs::path& p : {pooled, one_block, blocks}) fs::remove_all(p);
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
  // Releases timed after each trial only since validate --release-per-trial.
  options.pace = hw::PaceSource::kTrials;
  options.release = hw::ReleaseSource::kTrials;
  CHECK_THROWS_WITH(run("results/hw/h200-process-release/per-execution"), Catch::Contains("no release_after_op_by_trial"));
  // Blocks with nothing measured trial by trial.
  options.pace = hw::PaceSource::kWarmup;
  options.release = hw::ReleaseSource::kProcess;
  options.blocks = 20;
  options.platform_file = "results/hw/h200-measured/calibration.json";
  CHECK_THROWS_WITH(run("results/hw/h200-measured/per-execution"), Catch::Contains("--blocks needs the trials' pace or release"));
  options.blocks = 0;
  CHECK_THROWS_WITH(run("tests/hw"), Catch::Contains("no validate.json below it"));
  CHECK(!fs::exists(out));
}

TEST_CASE("repredict --zero: one platform cost at 0, what it changes in the session's prediction", "[hw][repredict]") {
  // h200-wake calibrated wake_first_launch_ns; at semaphore 1 the host waits before every execution.
  const std::string point = "conv-autotune/semaphore-1";
  const fs::path with = fresh_dir("zero-with"), without = fresh_dir("zero-without");
  repredict("h200-wake", {point}, hw::PaceSource::kCalibration, hw::ReleaseSource::kCalibration, with);
  repredict("h200-wake", {point}, hw::PaceSource::kCalibration, hw::ReleaseSource::kCalibration, without, 0, false,
            {"wake_first_launch_ns"});
  const json::value a = read_json(with / point / "validate.json"), b = read_json(without / point / "validate.json");
  CHECK(!a.at("repredicted").as_object().contains("zeroed"));
  CHECK(b.at("repredicted").at("zeroed") == json::array{"wake_first_launch_ns"});
  // Without the cost the simulated host launches faster after each wait: a shorter cadence.
  auto cadence = [](const json::value& doc) {
    return doc.at("runs").at(0).at("sim_repredicted").at("host_cadence_ns").to_number<double>();
  };
  CHECK(cadence(b) < cadence(a));
  SECTION("a cost the calibration already had at 0: the session's own prediction, byte for byte") {
    const fs::path again = fresh_dir("zero-again");
    repredict("h200-sweep-3", {point}, hw::PaceSource::kCalibration, hw::ReleaseSource::kCalibration, again, 0, false,
              {"wake_first_launch_ns"});
    const json::value c = read_json(again / point / "validate.json");
    CHECK(c.at("runs").at(0).at("sim_repredicted") == c.at("runs").at(0).at("sim"));
    fs::remove_all(again);
  }
  SECTION("a rate or an unknown name is refused, naming it") {
    for (const auto& [name, says] : {std::pair{"spin_ns_per_cycle", "'spin_ns_per_cycle' is a rate"},
                                     std::pair{"no_such_ns", "no platform field 'no_such_ns'"}}) {
      const fs::path refused = fresh_dir("zero-refused");
      CHECK_THROWS_WITH(repredict("h200-wake", {point}, hw::PaceSource::kCalibration, hw::ReleaseSource::kCalibration,
                                  refused, 0, false, {name}),
                        Catch::Contains(says));
      CHECK(!fs::exists(refused));  // nothing written
      fs::remove_all(refused.string() + ".src");
    }
  }
  fs::remove_all(with);
  fs::remove_all(without);
}

TEST_CASE("repredict --pace-factor: the runs of a calibration whose host pace is that many times slower",
          "[hw][repredict]") {
  // h200-warmup's execution 1 at semaphore 32 sits on the edge: a slower host moves it.
  const std::string session = "h200-warmup", point = "seed-repro/semaphore-32";
  const std::string calibration = "results/hw/" + session + "/calibration.json";
  const double factor = 1.3;
  const fs::path dir = fresh_dir("pace-factor");
  fs::create_directories(dir / "src" / point);
  fs::copy_file(fs::path("results/hw") / session / "per-execution" / point / "validate.json", dir / "src" / point / "validate.json");
  // The same calibration with every host-pace quantile times the factor, written by hand here so
  // the factor is checked against a scaling it does not share code with.
  PlatformSpread slower = load_platform_spread(calibration);
  for (double& q : slower.host_pace) q *= factor;
  const std::string slower_file = (dir / "slower.json").string();
  save_platform_file(slower_file, load_platform_file(calibration), slower);
  auto run = [&](const std::string& platform, double f, const fs::path& out) {
    hw::RepredictOptions options;
    options.platform_file = platform;
    options.pace = hw::PaceSource::kCalibration;
    options.release = hw::ReleaseSource::kCalibration;
    options.pace_factor = f;
    hw::repredict_session((dir / "src").string(), out.string(), options, [](const std::string&) {});
    return read_json(out / point / "validate.json");
  };
  const json::value scaled = run(calibration, factor, dir / "factor");
  const json::value by_hand = run(slower_file, 1, dir / "by-hand");
  CHECK(scaled.at("repredicted").at("pace_factor") == factor);
  CHECK(!by_hand.at("repredicted").as_object().contains("pace_factor"));
  json::object a = scaled.at("runs").at(0).at("sim_repredicted").as_object();
  json::object b = by_hand.at("runs").at(0).at("sim_repredicted").as_object();
  // The pace it records is the scaled one (to rounding: q * factor computed in two places).
  const json::array &pa = a.at("host_pace").as_array(), &pb = b.at("host_pace").as_array();
  REQUIRE(pa.size() == pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) CHECK(pa[i].to_number<double>() == Approx(pb[i].to_number<double>()));
  a.erase("host_pace");
  b.erase("host_pace");
  CHECK(a == b);
  // And it moved the prediction: the session's own calibrated one is different.
  CHECK(scaled.at("runs").at(0).at("sim_repredicted").at("manifest_by_execution") !=
        scaled.at("runs").at(0).at("sim").at("manifest_by_execution"));
  SECTION("a factor that is not positive and finite is refused, and nothing is written") {
    for (double f : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
      const fs::path refused = dir / "refused";
      CHECK_THROWS_AS(run(calibration, f, refused), std::invalid_argument);
      CHECK(!fs::exists(refused));
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("repredict --pace-band: the re-prediction at the calibration's p0 and p99 host pace over its median",
          "[hw][repredict]") {
  const std::string session = "h200-warmup", point = "seed-repro/semaphore-32";
  const std::string calibration = "results/hw/" + session + "/calibration.json";
  const fs::path dir = fresh_dir("pace-band");
  fs::create_directories(dir / "src" / point);
  fs::copy_file(fs::path("results/hw") / session / "per-execution" / point / "validate.json", dir / "src" / point / "validate.json");
  auto run = [&](const std::string& platform, bool band, double factor, const fs::path& out) {
    hw::RepredictOptions options;
    options.platform_file = platform;
    options.pace = hw::PaceSource::kCalibration;
    options.release = hw::ReleaseSource::kCalibration;
    options.pace_band = band;
    options.pace_factor = factor;
    hw::repredict_session((dir / "src").string(), out.string(), options, [](const std::string&) {});
    return read_json(out / point / "validate.json");
  };
  const json::value banded = run(calibration, true, 1, dir / "band");
  CHECK(banded.at("repredicted").at("pace_band") == true);
  const json::object& band = banded.at("runs").at(0).at("sim_pace_band").as_object();
  // The factors are the calibration's own pace quantiles at p0 and p99 over p50 (kSpreadLevels).
  const std::vector<double> pace = load_platform_spread(calibration).host_pace;
  REQUIRE(pace.size() == 7);
  CHECK(band.at("low_factor").to_number<double>() == pace[0] / pace[3]);
  CHECK(band.at("high_factor").to_number<double>() == pace[6] / pace[3]);
  CHECK(band.at("low_factor").to_number<double>() < 1);
  CHECK(band.at("high_factor").to_number<double>() > 1);
  // The low end is --pace-factor at that factor, field for field; the ends differ on this edge.
  const json::value low = run(calibration, false, band.at("low_factor").to_number<double>(), dir / "low");
  CHECK(band.at("low") == low.at("runs").at(0).at("sim_repredicted"));
  CHECK(band.at("low").at("manifest_by_execution") != band.at("high").at("manifest_by_execution"));
  // Its centre is the re-prediction at factor 1, here the file's own calibrated prediction.
  CHECK(banded.at("runs").at(0).at("sim_repredicted") == banded.at("runs").at(0).at("sim"));
  SECTION("a calibration without a host pace has no band: refused, and nothing is written") {
    fs::create_directories(dir / "old" / point);
    fs::copy_file(fs::path("results/hw/h200-final/per-execution") / point / "validate.json",
                  dir / "old" / point / "validate.json");
    hw::RepredictOptions options;
    options.platform_file = "results/hw/h200-final/calibration.json";
    options.pace = hw::PaceSource::kCalibration;
    options.release = hw::ReleaseSource::kCalibration;
    options.pace_band = true;
    CHECK_THROWS_WITH(hw::repredict_session((dir / "old").string(), (dir / "refused").string(), options,
                                            [](const std::string&) {}),
                      Catch::Contains("--pace-band") && Catch::Contains("records no host pace"));
    CHECK(!fs::exists(dir / "refused"));
  }
  fs::remove_all(dir);
}
