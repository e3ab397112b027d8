// The committed H200 summary is what validate_summary_markdown makes of the committed validate.json
// files: a hand edit, or a rerun without `allocsim-hw summarize`, fails here. And the summary's
// sentences follow the data on a hand-made session.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "allocsim/hw/validate_report.h"
#include "allocsim/hw/validate_summary.h"
#include "test_inputs.h"

namespace fs = std::filesystem;
using namespace allocsim;

namespace {

std::string slurp(const fs::path& p) { return test::read_text_file(p.string()); }

hw::ValidateRun run(std::string policy, std::string guard, int corrupted, std::uint64_t latent, std::uint64_t manifest) {
  hw::ValidateRun r;
  r.policy = std::move(policy);
  r.guard = std::move(guard);
  r.trials = 10;
  r.executions = 2;
  r.corrupted = corrupted;
  r.corrupted_executions = std::uint64_t(corrupted);
  r.corrupted_rate = corrupted / 20.0;
  r.corrupted_by_execution = {corrupted, 0};
  r.peak_bytes_in_use = r.peak_bytes_in_use_min = 1 << 20;
  r.host_ns_per_free = 2000;
  r.frees = 4;
  r.sim.runs = 10;
  r.sim.latent = latent;
  r.sim.manifest = manifest;
  r.sim.manifest_executions = manifest;
  r.sim.manifest_rate = manifest / 20.0;
  r.sim.manifest_by_execution = {int(manifest), 0};
  r.sim.peak_bytes_in_use = 1 << 20;
  return r;
}

/// A hand-made session's report of scenario "toy" at `semaphore`, its runs to be added.
hw::ValidateReport toy_report(int semaphore) {
  hw::ValidateReport rep;
  rep.device = "test GPU";
  rep.scenario = "toy";
  rep.semaphore = semaphore;
  return rep;
}

}  // namespace

TEST_CASE("the committed H200 summaries are generated from their validate.json files", "[hw][summary]") {
  for (const char* session : {"results/hw/h200", "results/hw/h200-samples/all", "results/hw/h200-samples/per-execution",
                              "results/hw/h200-pairs", "results/hw/h200-phases/per-execution",
                              "results/hw/h200-passes/per-execution", "results/hw/h200-host/per-execution",
                              "results/hw/h200-final/per-execution", "results/hw/h200-final/all",
                              "results/hw/h200-pace/per-execution", "results/hw/h200-pace/all",
                              "results/hw/h200-cadence/per-execution", "results/hw/h200-cadence/all",
                              "results/hw/h200-signal/per-execution", "results/hw/h200-signal/all",
                              "results/hw/h200-signal-2/per-execution", "results/hw/h200-callbacks/plain",
                              "results/hw/h200-callbacks/first", "results/hw/h200-callbacks-2/plain",
                              "results/hw/h200-callbacks-2/first", "results/hw/h200-callbacks-3/plain",
                              "results/hw/h200-callbacks-3/first", "results/hw/h200-lock/per-execution",
                              "results/hw/h200-lock/all", "results/hw/h200-lock-2/per-execution",
                              "results/hw/h200-lock-2/all", "results/hw/h200-callbacks-4/first",
                              "results/hw/h200-callbacks-5/first", "results/hw/h200-deferred/first",
                              "results/hw/h200-slots/per-execution", "results/hw/h200-slots/all",
                              "results/hw/h200-tail/per-execution", "results/hw/h200-tail/all",
                              "results/hw/h200-relay/per-execution", "results/hw/h200-relay/all",
                              "results/hw/h200-cold/per-execution", "results/hw/h200-cold/all",
                              "results/hw/h200-cold2/per-execution", "results/hw/h200-cold2/all",
                              "results/hw/h200-inproc/per-execution", "results/hw/h200-inproc/all",
                              "results/hw/h200-afterop/per-execution", "results/hw/h200-afterop/all",
                              "results/hw/h200-afterop-2/per-execution", "results/hw/h200-afterop-2/all",
                              "results/hw/h200-release-2/per-execution", "results/hw/h200-release-2/all",
                              "results/hw/h200-process-release/per-execution", "results/hw/h200-process-release/all",
                              "results/hw/h200-warmup/per-execution", "results/hw/h200-warmup/all",
                              "results/hw/h200-warmup-2/per-execution", "results/hw/h200-warmup-2/all",
                              "results/hw/h200-measured/per-execution",
                              "results/hw/h200-process-release/repredicted-trials-process/per-execution",
                              "results/hw/h200-process-release/repredicted-trials-process/all",
                              "results/hw/h200-warmup/repredicted-trials-process/per-execution",
                              "results/hw/h200-warmup/repredicted-trials-process/all",
                              "results/hw/h200-warmup/repredicted-warmup-process/per-execution",
                              "results/hw/h200-warmup/repredicted-warmup-process/all",
                              "results/hw/h200-warmup-2/repredicted-trials-process/per-execution",
                              "results/hw/h200-warmup-2/repredicted-trials-process/all",
                              "results/hw/h200-warmup-2/repredicted-warmup-process/per-execution",
                              "results/hw/h200-warmup-2/repredicted-warmup-process/all",
                              "results/hw/h200-measured/repredicted-trials-process/per-execution",
                              "results/hw/h200-measured/repredicted-warmup-process/per-execution",
                              "results/hw/h200-measured-2/per-execution",
                              "results/hw/h200-measured-2/repredicted-trials-process/per-execution",
                              "results/hw/h200-measured-2/repredicted-warmup-process/per-execution",
                              "results/hw/h200-trial-release/per-execution",
                              "results/hw/h200-trial-release/repredicted-trials-trials/per-execution",
                              "results/hw/h200-trial-release/repredicted-trials-process/per-execution",
                              "results/hw/h200-trial-release-2/per-execution",
                              "results/hw/h200-trial-release-2/repredicted-trials-trials/per-execution",
                              "results/hw/h200-trial-release-2/repredicted-trials-process/per-execution",
                              "results/hw/h200-trial-release-3/per-execution",
                              "results/hw/h200-trial-release-3/repredicted-trials-trials/per-execution",
                              "results/hw/h200-trial-release-3/repredicted-trials-process/per-execution",
                              "results/hw/h200-trial-release-4/per-execution",
                              "results/hw/h200-trial-release-4/repredicted-trials-trials/per-execution",
                              "results/hw/h200-trial-release-4/repredicted-trials-process/per-execution",
                              "results/hw/h200-trial-release-5/per-execution",
                              "results/hw/h200-trial-release-5/repredicted-trials-trials/per-execution",
                              "results/hw/h200-trial-release-5/repredicted-trials-process/per-execution",
                              "results/hw/h200-sweep/per-execution",
                              "results/hw/h200-sweep/repredicted-trials-trials/per-execution",
                              "results/hw/h200-sweep/repredicted-trials-process/per-execution",
                              "results/hw/h200-sweep-2/per-execution",
                              "results/hw/h200-sweep-2/repredicted-trials-trials/per-execution",
                              "results/hw/h200-sweep-2/repredicted-trials-process/per-execution",
                              "results/hw/h200-all-trial-release/all",
                              "results/hw/h200-all-trial-release/repredicted-trials-trials/all",
                              "results/hw/h200-all-trial-release/repredicted-trials-process/all",
                              "results/hw/h200-all-trial-release-2/all",
                              "results/hw/h200-all-trial-release-2/repredicted-trials-trials/all",
                              "results/hw/h200-all-trial-release-2/repredicted-trials-process/all",
                              "results/hw/h200-sweep-3/per-execution",
                              "results/hw/h200-sweep-3/repredicted-trials-trials/per-execution",
                              "results/hw/h200-sweep-3/repredicted-trials-process/per-execution",
                              "results/hw/h200-all-sweep/all",
                              "results/hw/h200-all-sweep/repredicted-trials-trials/all",
                              "results/hw/h200-all-sweep/repredicted-trials-process/all",
                              "results/hw/h200-wake/per-execution",
                              "results/hw/h200-wake/repredicted-calibrated/per-execution",
                              "results/hw/h200-wake/repredicted-calibrated-without-wake/per-execution",
                              "results/hw/h200-wake/repredicted-trials-trials/per-execution",
                              "results/hw/h200-wake/repredicted-trials-process/per-execution",
                              "results/hw/h200-wake-2/per-execution",
                              "results/hw/h200-wake-2/repredicted-calibrated/per-execution",
                              "results/hw/h200-wake-2/repredicted-calibrated-without-wake/per-execution",
                              "results/hw/h200-wake-2/repredicted-trials-trials/per-execution",
                              "results/hw/h200-wake-2/repredicted-trials-process/per-execution",
                              "results/hw/h200-all-wake/all",
                              "results/hw/h200-all-wake/repredicted-calibrated/all",
                              "results/hw/h200-all-wake/repredicted-calibrated-without-wake/all",
                              "results/hw/h200-all-wake/repredicted-trials-trials/all",
                              "results/hw/h200-all-wake/repredicted-trials-process/all",
                              "results/hw/h200-warmup-2/repredicted-relay-calibration/all",
                              "results/hw/h200-spin-edge", "results/hw/h200-spin-pinned",
                              "results/hw/h200-spin-unpinned", "results/hw/h200-cpu-probe",
                              "results/hw/h200-cpu-probe-2", "results/hw/h200-host-cpu", "results/hw/h200-host-cpu-2",
                              "results/hw/h200-host-cpu-3", "results/hw/h200-peak-cause",
                              "results/hw/h200-peak-cause-2", "results/hw/h200-peak-cause-32",
                              "results/hw/h200-deep-tail/per-execution", "results/hw/h200-deep-tail/all",
                              "results/hw/h200-deep-tail/repredicted-calibration-process/per-execution",
                              "results/hw/h200-deep-tail/repredicted-calibration-process/all",
                              "results/hw/h200-deep-tail/repredicted-two-point-tail/all",
                              "results/hw/h200-deep-tail-2/all",
                              "results/hw/h200-deep-tail-2/repredicted-calibration-process/all",
                              "results/hw/h200-handover-split/per-execution", "results/hw/h200-handover-split/all",
                              "results/hw/h200-handover-split/repredicted-no-handover/per-execution",
                              "results/hw/h200-handover-split/repredicted-no-handover/all",
                              "results/hw/h200-handover-split-2/all",
                              "results/hw/h200-handover-split-2/repredicted-no-handover/all",
                              "results/hw/h200-low-peak/seed-repro-2", "results/hw/h200-low-peak/seed-repro-4",
                              "results/hw/h200-low-peak/seed-repro-32", "results/hw/h200-low-peak/conv-autotune-1",
                              "results/hw/h200-handover-split-3/per-execution",
                              "results/hw/h200-handover-split-3/all",
                              "results/hw/h200-processes/per-execution",
                              "results/hw/h200-processes/repredicted-calibration-level/per-execution",
                              "results/hw/h200-processes-seed/per-execution",
                              "results/hw/h200-processes-seed/repredicted-calibration-level/per-execution",
                              "results/hw/h100-processes-h200-calibration/per-execution",
                              "results/hw/h100-pace-level/per-execution",
                              "results/hw/h100-pace-level/repredicted-no-level/per-execution",
                              "results/hw/h100-pace-level-all/all",
                              "results/hw/h200-pace-level/per-execution",
                              "results/hw/h100-all-h200-pace-level-calibration/all",
                              "results/hw/h100-pace-level-2/per-execution",
                              "results/hw/h100-level-all-2/all",
                              "results/hw/h100-level-all-3/all"}) {
    INFO(session);
    const fs::path dir = fs::path(ALLOCSIM_SOURCE_DIR) / session;
    REQUIRE(fs::exists(dir / "validate.md"));
    CHECK(slurp(dir / "validate.md") == hw::validate_summary_markdown(session));
  }
}

TEST_CASE("the committed check-sweep repredictions' summaries are computed from their files", "[hw][summary]") {
  // repredict --check-sweep on the sessions calibrated before op_check_sweep (their README's list).
  int folders = 0;
  for (const auto& session : fs::directory_iterator(fs::path("results/hw")))
    for (const auto& sub : fs::directory_iterator(session.path())) {
      if (sub.path().filename().string().rfind("repredicted-sweep-", 0) != 0) continue;
      const fs::path dir = sub.path() / "per-execution";
      INFO(dir.string());
      REQUIRE(fs::exists(dir / "validate.md"));
      CHECK(slurp(dir / "validate.md") == hw::validate_summary_markdown(dir.string()));
      ++folders;
    }
  CHECK(folders == 25);
}

TEST_CASE("summary sentences follow the data", "[hw][summary]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim_summary_test." + std::to_string(::getpid()));
  fs::remove_all(dir);
  hw::ValidateReport rep = toy_report(2);
  rep.runs = {run("immediate", "none", 10, 3, 10), run("stream-aware", "none", 0, 0, 0)};
  hw::write_validate_files((dir / "toy" / "semaphore-2").string(), rep);
  std::string md = hw::validate_summary_markdown(dir.string());
  CHECK(md.find("The other 1 of 2 combinations") != std::string::npos);
  CHECK(md.find("No combination the simulator calls race-free was corrupted") != std::string::npos);
  CHECK(md.find("toy: `immediate + none`;") != std::string::npos);

  rep.runs[1] = run("stream-aware", "none", 4, 0, 0);  // corrupted on hw, race-free in sim
  hw::write_validate_files((dir / "toy" / "semaphore-2").string(), rep);
  md = hw::validate_summary_markdown(dir.string());
  CHECK(md.find("The other 0 of 2 combinations") != std::string::npos);
  CHECK(md.find("1 combinations the simulator calls race-free were corrupted") != std::string::npos);
  CHECK(md.find("**+20.0 pp**") != std::string::npos);  // 4/20 on hw vs 0 in sim, beyond 10 pp
  fs::remove_all(dir);
}

TEST_CASE("summary: a point's trials in several processes are pooled, each process's own miss beside it",
          "[hw][summary]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim_summary_pool." + std::to_string(::getpid()));
  fs::remove_all(dir);
  // Two processes of 10 trials, 2 executions, against one calibrated prediction of 4 in 10 runs on
  // execution 0: one process corrupted it in 9 trials (+50 pp alone), the other in 1 (-30 pp).
  hw::ValidateReport rep = toy_report(2);
  for (int corrupted : {9, 1}) {
    rep.runs = {run("immediate", "none", corrupted, 0, 4)};
    // Each trial's launch cadence against the simulator's 1 us: median pace 1.00 in one, 1.30 in the other.
    rep.runs[0].sim.host_cadence_ns = 1000;
    rep.runs[0].host_cadence_by_trial = corrupted == 9 ? std::vector<double>{900, 1000, 1100}
                                                       : std::vector<double>{1200, 1300, 1400};
    hw::write_validate_files((dir / "toy" / "semaphore-2" / ("process-" + std::to_string(corrupted))).string(), rep);
  }
  std::string md = hw::validate_summary_markdown(dir.string());
  // Pooled: 10 of 20 trials (50%) against 40%: +10 pp on execution 0; overall 10/40 against 4/20.
  CHECK(md.find("| toy | 2 | 1 | 1 | 1 | 25.0% | 20.0% | +5.0 pp | +5.0 pp (immediate + none) | +10.0 pp (immediate + "
                "none) |") != std::string::npos);
  CHECK(md.find("| toy | 2 | immediate + none | 2 | 20 | +10.0 pp | **-30.0 pp**, **+50.0 pp** | 0 of 2 | - | 1.00–1.30 |") !=
        std::string::npos);
  CHECK(md.find("| toy | 2 | immediate + none | 0/20 | 10/20 | 10/40 (25.0%) |") != std::string::npos);

  // A process whose calibrated prediction differs is not of the same calibration: refused.
  rep.runs = {run("immediate", "none", 3, 0, 5)};
  hw::write_validate_files((dir / "toy" / "semaphore-2" / "process-3").string(), rep);
  CHECK_THROWS_WITH(hw::validate_summary_markdown(dir.string()), Catch::Contains("differs from the other processes'"));
  fs::remove_all(dir);
}

TEST_CASE("a session folder without validate.json is refused", "[hw][summary]") {
  const fs::path empty = fs::temp_directory_path() / ("allocsim_empty_session." + std::to_string(::getpid()));
  fs::create_directories(empty);
  CHECK_THROWS_WITH(hw::validate_summary_markdown(empty.string()), Catch::Contains("no <scenario>/semaphore-<n>/validate.json"));
  fs::remove_all(empty);
  CHECK_THROWS(hw::validate_summary_markdown(empty.string()));  // and a folder that does not exist
}

TEST_CASE("summary: peaks outside the hardware's range and host costs beyond 25% are named from the data",
          "[hw][summary]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim_summary_cost." + std::to_string(::getpid()));
  fs::remove_all(dir);
  hw::ValidateReport rep = toy_report(2);
  hw::ValidateRun inside = run("deferred-callback", "none", 0, 0, 0), outside = run("host-sync", "none", 0, 0, 0);
  inside.peak_bytes_in_use_min = 1 << 20;
  inside.peak_bytes_in_use = 3 << 20;
  inside.sim.peak_bytes_in_use = 2 << 20;  // within the trials' 1-3 MiB
  outside.sim.peak_bytes_in_use = 5 << 20;
  inside.host_ns_per_free = 2000;
  inside.sim.host_ns_per_free = 2400;  // +20%: agrees
  outside.host_ns_per_free = 2000;
  outside.sim.host_ns_per_free = 1400;  // -30%: does not
  rep.runs = {inside, outside};
  hw::write_validate_files((dir / "toy" / "semaphore-2").string(), rep);
  const std::string md = hw::validate_summary_markdown(dir.string());
  CHECK(md.find("0 of 2 combinations have the same peak on both") != std::string::npos);
  CHECK(md.find("| 5.00 (outside) |") != std::string::npos);
  CHECK(md.find("1 of these 2 lie within the hardware's range over its trials; 1 lie outside it, the farthest by "
                "400.0% of the range's nearer end (toy, semaphore 2, host-sync + none).") != std::string::npos);
  CHECK(md.find("| deferred-callback | 1 | 2.00 | 2.00–2.00 | 2.40 | +20% |") != std::string::npos);
  CHECK(md.find("| host-sync | 1 | 2.00 | 2.00–2.00 | 1.40 | **-30%** |") != std::string::npos);
  CHECK(md.find("1 of 2 policies agree within 25%: `deferred-callback`. Outside it: `host-sync`.") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("summary: the hardware's peak range against the simulator's sampled range", "[hw][summary]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim_summary_range." + std::to_string(::getpid()));
  fs::remove_all(dir);
  hw::ValidateReport rep = toy_report(2);
  hw::ValidateRun covered = run("deferred-callback", "none", 0, 0, 0), wider = run("event-poll", "none", 0, 0, 0),
                  steady = run("immediate", "none", 0, 0, 0);
  covered.peak_bytes_in_use_min = 2 << 20, covered.peak_bytes_in_use = 3 << 20;
  covered.sim.peak_bytes_in_use_min = 1 << 20, covered.sim.peak_bytes_in_use_max = 4 << 20;
  wider.peak_bytes_in_use_min = 1 << 20, wider.peak_bytes_in_use = 5 << 20;
  wider.sim.peak_bytes_in_use_min = 2 << 20, wider.sim.peak_bytes_in_use_max = 4 << 20;
  steady.sim.peak_bytes_in_use_min = steady.sim.peak_bytes_in_use_max = 1 << 20;  // varies on neither side
  rep.runs = {covered, wider, steady};
  hw::write_validate_files((dir / "toy" / "semaphore-2").string(), rep);
  const std::string md = hw::validate_summary_markdown(dir.string());
  CHECK(md.find("| toy | 2 | deferred-callback + none | 2.00–3.00 | 1.00–4.00 | yes |") != std::string::npos);
  CHECK(md.find("| toy | 2 | event-poll + none | 1.00–5.00 | 2.00–4.00 | **no** |") != std::string::npos);
  CHECK(md.find("immediate + none | 1.00–1.00") == std::string::npos);
  CHECK(md.find("The hardware's range lies inside the simulator's for 1 of these 2 combinations; for the callback "
                "and poll policies, 1 of 2.") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("summary: the prediction with the host pace measured on the GPU, point by point", "[hw][summary]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim_summary_paced." + std::to_string(::getpid()));
  fs::remove_all(dir);
  hw::ValidateReport rep = toy_report(2);
  // The hardware corrupts execution 0 in 6 of 10 trials; the calibration's prediction says 1 in 10
  // (-50 pp on that execution), the host-paced one 5 in 10 (+10 pp).
  hw::ValidateRun r = run("immediate", "none", 6, 1, 1);
  r.peak_bytes_in_use_min = 1 << 20, r.peak_bytes_in_use = 3 << 20;
  r.sim.peak_bytes_in_use_min = r.sim.peak_bytes_in_use_max = 1 << 20;
  r.host_busy_ns = 1200;
  hw::SimPrediction paced = r.sim;
  paced.manifest = paced.manifest_executions = 5;
  paced.manifest_rate = 5 / 20.0;
  paced.manifest_by_execution = {5, 0};
  paced.peak_bytes_in_use_min = 1 << 20, paced.peak_bytes_in_use_max = 4 << 20;
  paced.host_pace = {0.9, 1.0, 1.1, 1.2, 1.3, 1.5, 2.0};
  r.sim_host_paced = paced;
  // The calibrated prediction drew its pace around 0.8: the validating process ran the host-pace
  // workload at 0.8 of the calibrating process's time.
  r.sim.host_pace = {0.7, 0.75, 0.78, 0.8, 0.82, 0.85, 0.9};
  rep.runs = {r};
  hw::write_validate_files((dir / "toy" / "semaphore-2").string(), rep);
  const std::string md = hw::validate_summary_markdown(dir.string());
  CHECK(md.find("## Predicted with this host's pace on each program") != std::string::npos);
  CHECK(md.find("| toy | 2 | 1.00 / 1.20 / 1.50 | 30.0% | 25.0% | +5.0 pp | +10.0 pp | 0.125 | 0.80 | **+50.0 pp** |") !=
        std::string::npos);
  CHECK(md.find("With the measured pace, 1 of 1 points lie within 10 pp overall and 1 of 1 within 20 pp on every "
                "execution; calibrated (the last column's prediction), 0 and 0.") != std::string::npos);
  CHECK(md.find("| toy | 2 | immediate + none | 1.00–3.00 | 1.00–1.00 | **no** | 1.00–4.00 | yes |") != std::string::npos);
  CHECK(md.find("Inside the host-paced prediction's: 1 of 1; for the callback and poll policies, 0 of 0.") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("summary: the prediction with the warm-up trials' pace, point by point", "[hw][summary]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim_summary_warmup." + std::to_string(::getpid()));
  fs::remove_all(dir);
  hw::ValidateReport rep = toy_report(8);
  // The hardware corrupts execution 0 in 6 of 10 trials; the calibrated prediction says 1 in 10
  // (+50 pp on that execution), the warm-up-paced one 7 in 10 (-10 pp).
  // A second point without warm-up has no row.
  hw::ValidateRun r = run("immediate", "none", 6, 1, 1);
  hw::SimPrediction warm = r.sim;
  warm.manifest = warm.manifest_executions = 7;
  warm.manifest_rate = 7 / 20.0;
  warm.manifest_by_execution = {7, 0};
  warm.host_pace = {0.9, 1.0, 1.05, 1.1, 1.2, 1.3, 1.4};
  r.sim_warmup_paced = warm;
  r.warmup_trials = 5;
  r.warmup_host_cadence_by_trial = {1, 2, 3, 4, 5};
  rep.runs = {r};
  hw::write_validate_files((dir / "toy" / "semaphore-8").string(), rep);
  hw::ValidateReport other = toy_report(2);
  other.runs = {run("immediate", "none", 6, 1, 1)};
  hw::write_validate_files((dir / "toy" / "semaphore-2").string(), other);
  const std::string md = hw::validate_summary_markdown(dir.string());
  INFO(md);
  CHECK(md.find("## Predicted with the pace of warm-up trials run first in the same process") != std::string::npos);
  CHECK(md.find("Before its counted trials each combination ran 5 uncounted trials") != std::string::npos);
  CHECK(md.find("| toy | 8 | 1.00 / 1.10 / 1.30 | 30.0% | 35.0% | -5.0 pp | -10.0 pp | 0.125 | - | **+50.0 pp** |") !=
        std::string::npos);
  CHECK(md.find("| toy | 2 | 1.00 / 1.10") == std::string::npos);
  CHECK(md.find("With the warm-up's pace, 1 of 1 points lie within 10 pp overall and 1 of 1 within 20 pp on every "
                "execution; calibrated (the last column's prediction), 0 and 0.") != std::string::npos);
  CHECK(md.find("## Predicted with this host's pace on each program") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("summary: the release timed in each process against the calibration's, point by point", "[hw][summary]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim_summary_release." + std::to_string(::getpid()));
  fs::remove_all(dir);
  hw::ValidateReport rep = toy_report(8);
  hw::ProcessRelease pr;
  pr.rounds = 1000;
  pr.calibration = {0, 68'000, 77'000, 94'000, 233'000, 358'000, 667'000};
  pr.measured = {10'000, 60'000, 70'000, 80'000, 90'000, 120'000, 300'000};
  rep.process_release = pr;
  // The hardware corrupts execution 0 in 6 of 10 trials; with this process's release the
  // prediction says 5 in 10 (+10 pp), with the calibration's (`sim`) 1 in 10 (+50 pp).
  hw::ValidateRun r = run("immediate", "none", 6, 1, 1);
  hw::SimPrediction here = r.sim;
  here.manifest = here.manifest_executions = 5;
  here.manifest_rate = 5 / 20.0;
  here.manifest_by_execution = {5, 0};
  r.sim_process_release = here;
  rep.runs = {r};
  hw::write_validate_files((dir / "toy" / "semaphore-8").string(), rep);
  const std::string md = hw::validate_summary_markdown(dir.string());
  CHECK(md.find("## The semaphore release: timed in each validating process against the calibration's") !=
        std::string::npos);
  CHECK(md.find("| toy | 8 | 80 / 120 | 94 / 358 | +5.0 pp | +10.0 pp | **+25.0 pp** | **+50.0 pp** |") != std::string::npos);
  CHECK(md.find("With the release timed in each process, 1 of 1 points lie within 10 pp overall and 1 of 1 within 20 "
                "pp on every execution; with the calibration's, 0 and 0.") != std::string::npos);
  CHECK(md.find("The tables above show the calibration's (`sim`); this process's is `sim_process_release`.") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("summary: the calibrated prediction as a band over the calibration's host pace, point by point",
          "[hw][summary]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim_summary_band." + std::to_string(::getpid()));
  fs::remove_all(dir);
  // The hardware corrupts execution 0 in 6 of 10 trials; the calibrated prediction says 1 in 10
  // (+50 pp), its band's ends 0 and 5 in 10: the band 0 % to 50 %, 10 pp below the hardware.
  hw::ValidateRun r = run("immediate", "none", 6, 1, 1);
  hw::PaceBand band;
  band.low_factor = 0.8, band.high_factor = 1.4;
  band.low = band.high = r.sim;
  band.low.manifest = band.low.manifest_executions = 0;
  band.low.manifest_rate = 0;
  band.low.manifest_by_execution = {0, 0};
  band.high.manifest = band.high.manifest_executions = 5;
  band.high.manifest_rate = 5 / 20.0;
  band.high.manifest_by_execution = {5, 0};
  r.sim_pace_band = band;
  hw::ValidateReport rep = toy_report(2);
  rep.runs = {r};
  hw::write_validate_files((dir / "toy" / "semaphore-2").string(), rep);
  // A point without a band has no row.
  hw::ValidateReport other = toy_report(8);
  other.runs = {run("immediate", "none", 6, 1, 1)};
  hw::write_validate_files((dir / "toy" / "semaphore-8").string(), other);
  std::string md = hw::validate_summary_markdown(dir.string());
  INFO(md);
  CHECK(md.find("## The prediction as a band over the calibration's host pace") != std::string::npos);
  CHECK(md.find("the band's centre is the calibrated prediction (`sim`)") != std::string::npos);
  CHECK(md.find("| toy | 2 | 0.80 / 1.40 | 30.0% | 0.0% to 25.0% | +5.0 pp | +10.0 pp | 50.0 pp (0) | **+50.0 pp** |") !=
        std::string::npos);
  CHECK(md.find("| toy | 8 | 0.80") == std::string::npos);
  CHECK(md.find("With the band, 1 of 1 points lie within 10 pp of it overall and 1 of 1 within 20 pp of it on every "
                "execution; its centre alone, 0 and 0.") != std::string::npos);
  // The hardware beyond the band by more than 20 pp on an execution: counted out, and marked.
  r.corrupted_by_execution = {6, 8};
  r.corrupted_executions = 14, r.corrupted = 8;
  r.corrupted_rate = 14 / 20.0;
  rep.runs = {r};
  hw::write_validate_files((dir / "toy" / "semaphore-2").string(), rep);
  md = hw::validate_summary_markdown(dir.string());
  CHECK(md.find("| toy | 2 | 0.80 / 1.40 | 70.0% | 0.0% to 25.0% | **+45.0 pp** | **+80.0 pp** | 50.0 pp (0) | **+80.0 pp** |") !=
        std::string::npos);
  CHECK(md.find("With the band, 0 of 1 points lie within 10 pp of it overall and 0 of 1 within 20 pp of it on every "
                "execution; its centre alone, 0 and 0.") != std::string::npos);
  fs::remove_all(dir / "toy" / "semaphore-2");
  CHECK(hw::validate_summary_markdown(dir.string()).find("as a band") == std::string::npos);
  fs::remove_all(dir);
}
