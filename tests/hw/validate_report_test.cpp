// validate.json schema and the both-or-neither file writer.
#include <catch2/catch.hpp>

#include <boost/json.hpp>
#include <filesystem>

#include "allocsim/hw/validate_report.h"
#include "allocsim/results/atomic_file.h"

using namespace allocsim;

static hw::ValidateReport sample() {
  hw::ValidateReport r;
  r.device = "NVIDIA H200";
  r.scenario = "seed-repro";
  r.command = "allocsim-hw validate seed-repro --trials 2 --out x";
  r.semaphore = 1;
  hw::ValidateRun run;
  run.policy = "immediate";
  run.guard = "none";
  run.trials = 2;
  run.aliased = 2;
  run.executions = 4;
  run.corrupted = 1;
  run.corrupted_executions = 2;
  run.corrupted_rate = 0.25;
  run.corrupted_by_execution = {2, 0, 0, 0};
  run.stale_trials = 1;
  run.stale_words = 10;
  run.peak_bytes_in_use = 12582912;
  run.peak_bytes_in_use_min = 12582912;
  run.host_ns_per_free = 250.5;
  run.wall_ns = 123456;
  run.sim.latent = 3;
  run.sim.manifest = 1;
  run.sim.runs = 2;
  run.sim.manifest_executions = 1;
  run.sim.manifest_rate = 0.125;
  run.sim.peak_bytes_in_use = 12582912;
  r.runs.push_back(run);
  return r;
}

TEST_CASE("validate.json has the issue's schema") {
  auto v = boost::json::parse(hw::validate_json(sample())).as_object();
  for (const char* k : {"device", "scenario", "command", "runs"}) CHECK(v.contains(k));
  auto run = v["runs"].as_array().at(0).as_object();
  for (const char* k : {"policy", "guard", "trials", "aliased", "corrupted", "peak_bytes_in_use", "host_ns_per_free",
                        "wall_ns", "sim"})
    CHECK(run.contains(k));
  CHECK(run["corrupted"].as_int64() == 1);
  CHECK(run["host_ns_per_free"].as_double() == Approx(250.5));
  auto sim = run["sim"].as_object();
  for (const char* k : {"latent", "manifest", "peak_bytes_in_use"}) CHECK(sim.contains(k));
  CHECK(sim["latent"].to_number<std::uint64_t>() == 3);
  CHECK(v["semaphore"].to_number<int>() == 1);
  CHECK(run["corrupted_rate"].as_double() == Approx(0.25));
  CHECK(run["stale_words"].to_number<std::uint64_t>() == 10);
  CHECK(run["rate_diff_pp"].as_double() == Approx(12.5));
  CHECK(sim["manifest_rate"].as_double() == Approx(0.125));
  REQUIRE(run["corrupted_by_execution"].as_array().size() == 4);
  CHECK(run["corrupted_by_execution"].as_array()[0].to_number<int>() == 2);
}

TEST_CASE("validate.md lists each run with host cost per free") {
  std::string md = hw::validate_markdown(sample());
  CHECK(md.find("| immediate | none | 2 | 4 | 2 | 1 | 1 | 25.0% | 12.5% | +12.5 | 3 | 12582912 | 12582912 | 250 |") !=
        std::string::npos);
  CHECK(md.find("rate miss > 10 pp") != std::string::npos);
}

TEST_CASE("validate.json and validate.md carry the host pace measured in the validating process") {
  hw::ValidateReport r = sample();
  CHECK(!boost::json::parse(hw::validate_json(r)).as_object().contains("process_pace"));
  CHECK(hw::validate_markdown(r).find("host pace in this process") == std::string::npos);
  r.process_pace = hw::ProcessPace{199, 1'600'000, 1'200'000};
  auto pace = boost::json::parse(hw::validate_json(r)).as_object()["process_pace"].as_object();
  CHECK(pace["trials"].to_number<int>() == 199);
  CHECK(pace["reference_ns"].to_number<double>() == 1'600'000);
  CHECK(pace["busy_ns"].to_number<double>() == 1'200'000);
  CHECK(pace["pace"].to_number<double>() == 0.75);
  CHECK(hw::validate_markdown(r).find("- host pace in this process: 0.750 (the calibration's host-pace workload, 199 "
                                      "trials here: median 1200 us host busy against 1600 us when calibrated)") !=
        std::string::npos);
}

TEST_CASE("validate.json and validate.md carry the release path timed in the validating process") {
  hw::ValidateReport r = sample();
  CHECK(!boost::json::parse(hw::validate_json(r)).as_object().contains("process_release"));
  CHECK(hw::validate_markdown(r).find("semaphore release in this process") == std::string::npos);
  hw::ProcessRelease pr;
  pr.rounds = 1000;
  pr.calibration_ns = 94'000;
  pr.calibration = {0, 68'000, 77'000, 94'000, 233'000, 358'000, 667'000};
  pr.measured = {10'000, 60'000, 70'000, 80'000, 90'000, 120'000, 300'000};
  r.process_release = pr;
  r.runs[0].sim_process_release = r.runs[0].sim;
  r.runs[0].sim_process_release->manifest_executions = 7;
  auto v = boost::json::parse(hw::validate_json(r)).as_object();
  auto rel = v["process_release"].as_object();
  CHECK(rel["rounds"].to_number<int>() == 1000);
  CHECK(rel["calibration_ns"].to_number<double>() == 94'000);
  CHECK(rel["measured_ns"].to_number<double>() == 80'000);
  REQUIRE(rel["measured"].as_array().size() == 7);
  CHECK(rel["measured"].as_array()[5].to_number<double>() == 120'000);
  CHECK(rel["calibration"].as_array()[5].to_number<double>() == 358'000);
  CHECK(!rel["applied"].as_bool());
  auto run = v["runs"].as_array().at(0).as_object();
  CHECK(run["sim_process_release"].as_object()["manifest_executions"].to_number<int>() == 7);
  CHECK(hw::validate_markdown(r).find("- semaphore release in this process (a kernel's end to its callback, 1000 "
                                      "rounds): median 80 us, p90 120 us, against 94 us and 358 us when calibrated; "
                                      "predicted apart (`sim_process_release` in validate.json), not applied") !=
        std::string::npos);
}

TEST_CASE("write_validate_files writes both files, or none into an unwritable place") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "allocsim_hw_validate_test";
  fs::remove_all(dir);
  hw::write_validate_files(dir.string(), sample());
  CHECK(fs::exists(dir / "validate.json"));
  CHECK(fs::exists(dir / "validate.md"));
  fs::remove_all(dir);
  // A regular file where the folder should be: clean error, nothing written.
  write_file_atomically(dir.string(), "x");
  CHECK_THROWS(hw::write_validate_files(dir.string(), sample()));
  fs::remove(dir);
}

namespace {

/// sample() with a --schedule section: the forced run corrupted execution 0 in both trials.
hw::ValidateReport sample_with_schedule() {
  hw::ValidateReport r = sample();
  hw::ScheduleSection s;
  s.file = "w.json";
  s.schedule = "{\n  \"allocsim_schedule\": 1,\n  \"delays\": []\n}\n";
  s.forced = r.runs[0];
  s.forced.corrupted = 2;
  s.forced.corrupted_by_execution = {2, 0, 0, 1};
  s.forced.corrupted_executions = 3;
  s.forced.corrupted_rate = 0.375;
  s.forced.sim = hw::SimPrediction{};
  s.forced.sim.runs = 2;  // the simulator's replay of the schedule: execution 3 in both runs
  s.forced.sim.manifest_by_execution = {0, 0, 0, 2};
  s.forced.sim.manifest_executions = 2;
  s.forced.sim.manifest_rate = 0.25;
  hw::ForcedDelayResult d;
  d.hold = "stream compute op 2";
  d.until = "stream autotune op 0";
  d.held_ns = 1003000;
  d.timed_out_trials = {1};
  s.forced.forced_delays.push_back(d);
  r.schedule = s;
  return r;
}

}  // namespace

TEST_CASE("validate.json carries the schedule's forced run and each delay's time-outs") {
  CHECK_FALSE(boost::json::parse(hw::validate_json(sample())).as_object().contains("schedule"));
  auto v = boost::json::parse(hw::validate_json(sample_with_schedule())).as_object();
  REQUIRE(v.contains("schedule"));
  auto sch = v["schedule"].as_object();
  CHECK(sch["file"].as_string() == "w.json");
  CHECK(sch["schedule"].as_object()["allocsim_schedule"].to_number<int>() == 1);
  CHECK(sch["sim_replay"].as_bool() == true);
  auto forced = sch["forced"].as_object();
  CHECK(forced["corrupted"].to_number<int>() == 2);
  CHECK(forced["sim"].as_object()["available"].as_bool() == true);
  auto delay = forced["delays"].as_array().at(0).as_object();
  CHECK(delay["hold"].as_string() == "stream compute op 2");
  CHECK(delay["held_ns"].to_number<std::int64_t>() == 1003000);
  CHECK(delay["timed_out_trials"].as_array() == boost::json::array{1});
  CHECK(delay["not_held_trials"].as_array().empty());
  // The unforced baseline stays where summarize reads runs.
  CHECK(v["runs"].as_array().at(0).as_object()["corrupted"].to_number<int>() == 1);
}

TEST_CASE("validate.md sets forced against unforced corruption per execution") {
  const std::string md = hw::validate_markdown(sample_with_schedule());
  CHECK_THAT(md, Catch::Contains("## Schedule: forced delays"));
  CHECK_THAT(md, Catch::Contains("| 0 | stream compute op 2 | stream autotune op 0 | 1003000 | 1/2 (1) | 0/2 | 0/2 |"));
  // execution 0: forced 2/2, replay 0/2, unforced 2/2, sim 0/2; execution 3: forced 1/2, replay 2/2.
  CHECK_THAT(md, Catch::Contains("| 0 | 2/2 (100%) | 0/2 (0%) | 2/2 (100%) | 0/2 (0%) |"));
  CHECK_THAT(md, Catch::Contains("| 3 | 1/2 (50%) | 2/2 (100%) | 0/2 (0%) | 0/2 (0%) |"));
  CHECK_THAT(md, Catch::Contains("| all | 37.5% | 25.0% | 25.0% | 12.5% |"));
  CHECK_THAT(md, Catch::Contains("its replay of the schedule"));
}

TEST_CASE("validate.json carries each trial's host cadence and corrupted executions, and the warm-up's pace with its prediction") {
  hw::ValidateReport r = sample();
  r.runs[0].host_cadence_by_trial = {1000, 1100};
  auto run = boost::json::parse(hw::validate_json(r)).as_object()["runs"].as_array().at(0).as_object();
  REQUIRE(run["host_cadence_by_trial"].as_array().size() == 2);
  CHECK(run["host_cadence_by_trial"].as_array()[1].to_number<double>() == 1100);
  CHECK(!run.contains("warmup"));
  CHECK(run["corrupted_executions_by_trial"].as_array().empty());
  r.runs[0].corrupted_executions_by_trial = {{0, 2}, {}};
  auto by_trial = boost::json::parse(hw::validate_json(r)).as_object()["runs"].as_array().at(0).as_object()
                      ["corrupted_executions_by_trial"].as_array();
  REQUIRE(by_trial.size() == 2);
  CHECK(by_trial[0].as_array().size() == 2);
  CHECK(by_trial[0].as_array()[1].to_number<int>() == 2);
  CHECK(by_trial[1].as_array().empty());
  CHECK(!run.contains("sim_warmup_paced"));
  r.runs[0].warmup_trials = 3;
  r.runs[0].warmup_host_cadence_by_trial = {900, 950, 1200};
  r.runs[0].sim_warmup_paced = r.runs[0].sim;
  r.runs[0].sim_warmup_paced->manifest_executions = 5;
  run = boost::json::parse(hw::validate_json(r)).as_object()["runs"].as_array().at(0).as_object();
  auto warmup = run["warmup"].as_object();
  CHECK(warmup["trials"].to_number<int>() == 3);
  REQUIRE(warmup["host_cadence_by_trial"].as_array().size() == 3);
  CHECK(warmup["host_cadence_by_trial"].as_array()[2].to_number<double>() == 1200);
  CHECK(run["sim_warmup_paced"].as_object()["manifest_executions"].to_number<int>() == 5);
}

TEST_CASE("validate.json carries the releases timed after each trial, only when they were timed") {
  hw::ValidateReport r = sample();
  auto run_of = [&] { return boost::json::parse(hw::validate_json(r)).as_object()["runs"].as_array().at(0).as_object(); };
  CHECK(!run_of().contains("release_after_op_by_trial"));
  r.runs[0].release_after_op_by_trial = {{101000, 99000}, {250000, 120000}};
  const boost::json::array by_trial = run_of()["release_after_op_by_trial"].as_array();
  REQUIRE(by_trial.size() == 2);
  REQUIRE(by_trial[1].as_array().size() == 2);
  CHECK(by_trial[1].as_array()[0].to_number<double>() == 250000);
  CHECK(by_trial[0].as_array()[1].to_number<double>() == 99000);
}

TEST_CASE("validate.json and validate.md carry the hypervisor's steal and the trials' CPUs, only when they were read") {
  hw::ValidateReport r = sample();
  auto run_of = [&] { return boost::json::parse(hw::validate_json(r)).as_object()["runs"].as_array().at(0).as_object(); };
  CHECK(!run_of().contains("steal_share"));
  CHECK(hw::validate_markdown(r).find("hypervisor stole") == std::string::npos);
  CHECK(r.runs[0].steal_share() == -1);
  r.runs[0].cpu_ticks_by_trial = {300, 500};
  r.runs[0].steal_ticks_by_trial = {1, 7};
  const auto run = run_of();
  CHECK(run.at("steal_ticks_by_trial").as_array().size() == 2);
  CHECK(run.at("cpu_ticks_by_trial").as_array()[1].to_number<int>() == 500);
  CHECK(run.at("steal_share").as_double() == Approx(0.01));
  CHECK(!run.contains("host_cpu_by_trial"));
  r.runs[0].host_cpu_by_trial = {3, 7};
  CHECK(run_of().at("host_cpu_by_trial").as_array()[1].to_number<int>() == 7);
  CHECK(!run_of().contains("cpu_probe_ns_by_trial"));
  r.runs[0].cpu_probe_ns_by_trial = {100000, 150000};
  CHECK(run_of().at("cpu_probe_ns_by_trial").as_array()[1].to_number<double>() == 150000);
  CHECK(!run_of().contains("call_ns_by_trial"));
  r.runs[0].call_ns_by_trial[std::size_t(hw::HostCall::Launch)] = {5000, 7000};
  r.runs[0].call_ns_by_trial[std::size_t(hw::HostCall::EventQuery)] = {0, 0};  // never called: left out
  const auto calls = run_of().at("call_ns_by_trial").as_object();
  CHECK(calls.size() == 1);
  CHECK(calls.at("launch").as_array()[1].to_number<double>() == 7000);
  CHECK(hw::validate_markdown(r).find("hypervisor stole during the counted trials (/proc/stat, all CPUs): " +
                                      r.runs[0].policy + " + " + r.runs[0].guard + " 1.00%") != std::string::npos);
}

TEST_CASE("validate.json carries the pace band only where validate predicted it") {
  hw::ValidateReport r = sample();
  auto run = boost::json::parse(hw::validate_json(r)).as_object()["runs"].as_array().at(0).as_object();
  CHECK(!run.contains("sim_pace_band"));
  hw::PaceBand band;
  band.low_factor = 0.75, band.high_factor = 1.5;
  band.low = band.high = r.runs[0].sim;
  band.low.manifest_executions = 2;
  band.high.manifest_executions = 9;
  r.runs[0].sim_pace_band = band;
  run = boost::json::parse(hw::validate_json(r)).as_object()["runs"].as_array().at(0).as_object();
  auto b = run["sim_pace_band"].as_object();
  CHECK(b["low_factor"].to_number<double>() == 0.75);
  CHECK(b["high_factor"].to_number<double>() == 1.5);
  CHECK(b["low"].as_object()["manifest_executions"].to_number<int>() == 2);
  CHECK(b["high"].as_object()["manifest_executions"].to_number<int>() == 9);
  // The ends have every field of "sim".
  for (const auto& [key, value] : run["sim"].as_object()) CHECK(b["high"].as_object().contains(key));
}
