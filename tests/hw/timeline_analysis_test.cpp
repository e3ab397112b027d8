// The committed hardware analyses (results/hw/h200-edge, h200-edge-2, h200-chain, h200-launch, h200-callbacks, -2 to -5, h200-deferred,
// h200-process-pace, h200-release, h200-release-2-timelines, h200-process-outcomes, h200-warmup-outcomes,
// h200-warmup, h200-trial-release, post-wake, h200-spin-edge, h200-cpu-probe, h200-host-cpu, h200-handover:
// analysis.md) are what hw/scripts/timeline_analysis.py computes from their committed data: a hand edit, or new
// timelines without a rerun of the script, fails here.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <utility>

#include "test_inputs.h"

namespace {

/// Runs `cmd` (a committed analysis script with --check) and checks that it exits 0.
void check_command(const std::string& cmd) {
  INFO(cmd);
  CHECK(std::system(cmd.c_str()) == 0);
}

std::string python_or_skip() {
  const std::string python = ALLOCSIM_TEST_PYTHON;
  allocsim::test::require_tool(!python.empty() && python.find("NOTFOUND") == std::string::npos, "python3 not found");
  return python;
}

/// hw/scripts/peak_misses.py of one every-policy pass: the trials outside the simulated peak range
/// beside their host pace and relay waits, and (paced) the simulator's runs at each such trial's
/// own pace, which replays the program once per trial with the CLI.
void check_peak_misses(const std::string& session) {
  const std::string root = ALLOCSIM_SOURCE_DIR;
  const std::string misses = python_or_skip() + " " + root + "/hw/scripts/peak_misses.py ";
  check_command(misses + root + session + " --check");
  check_command(misses + "paced " + root + session + " " + ALLOCSIM_TEST_CLI + " --check");
}

}  // namespace

TEST_CASE("the committed timeline analyses are computed from their timelines", "[hw][timeline]") {
  const std::string python = python_or_skip();
  const std::string root = ALLOCSIM_SOURCE_DIR;
  for (const auto& [what, folder_name] : {std::pair<const char*, const char*>{"edge", "h200-edge"},
                                          {"launch", "h200-launch"}, {"wake", "h200-edge-2"}, {"chain", "h200-chain"},
                                          {"callbacks", "h200-callbacks"}, {"callbacks", "h200-callbacks-2"},
                                          {"callbacks", "h200-callbacks-3"}, {"callbacks", "h200-callbacks-4"},
                                          {"callbacks", "h200-callbacks-5"}, {"queue", "h200-deferred"},
                                          {"process", "h200-process-pace"}, {"release", "h200-release"},
                                          {"release", "h200-release-2-timelines"},
                                          {"outcomes", "h200-process-outcomes"}, {"warmup", "h200-warmup-outcomes"},
                                          {"pace", "h200-warmup"}, {"trial-release", "h200-trial-release"},
                                          {"post-wake", "post-wake"}, {"spin-edge", "h200-spin-edge"},
                                          {"cpu-probe", "h200-cpu-probe"}, {"host-cpu", "h200-host-cpu"},
                                          {"handover", "h200-handover"}}) {
    const std::string folder = root + "/results/hw/" + folder_name;
    check_command(python + " " + root + "/hw/scripts/timeline_analysis.py " + what + " " + folder + " --check");
  }
}

// One test case a group, so that each stays within CTest's timeout in the sanitizer build, where
// the paced replays are the slowest part.

// results/hw/h200-peak-cause, -2, -32 and h200-low-peak/conv-autotune-1: analysis.md is what
// hw/scripts/callback_log.py computes from the summaries beside it, and (for all but the first, whose
// summaries the committed script wrote) summarizing the raw lines kept beside them again gives the
// same summaries; h200-peak-median/handover-gaps.md is what it computes from its kept raw lines.
TEST_CASE("the committed peak-cause analyses are computed from their callback logs", "[hw][timeline]") {
  const std::string root = ALLOCSIM_SOURCE_DIR;
  const std::string script = python_or_skip() + " " + root + "/hw/scripts/callback_log.py ";
  for (const char* folder_name : {"h200-peak-cause", "h200-peak-cause-2", "h200-peak-cause-32", "h200-peak-median",
                                  "h200-low-peak/conv-autotune-1"})
    check_command(script + "peak-cause " + root + "/results/hw/" + folder_name + " --check");
  check_command(script + "handover-gaps " + root + "/results/hw/h200-peak-median --check");
  for (const char* folder_name : {"h200-peak-cause-2", "h200-peak-cause-32", "h200-peak-median",
                                  "h200-low-peak/seed-repro-2", "h200-low-peak/seed-repro-4",
                                  "h200-low-peak/seed-repro-32", "h200-low-peak/conv-autotune-1"})
    check_command(script + "check-summaries " + root + "/results/hw/" + folder_name);
}

// results/hw/h200-all-wake/peak-delays.md (and h200-handover-split-3's) is what callback_log.py
// computes from that pass's validate.json files, results/hw/peak-medians/analysis.md what it computes
// from the eight every-policy passes it names (and h200-handover-split's, -2's and -3's from their
// passes).
TEST_CASE("the committed peak delays and medians are computed from their passes", "[hw][timeline]") {
  const std::string root = ALLOCSIM_SOURCE_DIR;
  const std::string script = python_or_skip() + " " + root + "/hw/scripts/callback_log.py ";
  for (const char* session : {"/results/hw/h200-all-wake", "/results/hw/h200-handover-split-3"})
    check_command(script + "peak-delays " + root + session + " --check");
  std::string medians = script + "peak-medians " + root + "/results/hw/peak-medians";
  for (const char* session : {"h200-all-sweep", "h200-all-trial-release", "h200-all-trial-release-2", "h200-all-wake",
                              "h200-warmup", "h200-warmup-2", "h200-deep-tail", "h200-deep-tail-2"})
    medians += std::string(" ") + root + "/results/hw/" + session;
  check_command(medians + " --check");
  // h200-handover-split's pass against its own prediction and against the model without the hand-over
  // (-3's against its own alone).
  check_command(script + "peak-medians " + root + "/results/hw/h200-handover-split-3/peak-medians " + root +
                "/results/hw/h200-handover-split-3 --check");
  for (const char* session : {"/results/hw/h200-handover-split", "/results/hw/h200-handover-split-2"})
    for (const char* folder_name : {"/peak-medians", "/peak-medians-no-handover"})
      check_command(script + "peak-medians " + root + session + folder_name + " " + root + session + " --check");
}

TEST_CASE("h200-handover-split's and -2's peak misses are computed from their passes", "[hw][timeline]") {
  check_peak_misses("/results/hw/h200-handover-split");
  check_peak_misses("/results/hw/h200-handover-split-2");
}

TEST_CASE("h200-handover-split-3's peak misses are computed from its pass", "[hw][timeline]") {
  check_peak_misses("/results/hw/h200-handover-split-3");
}

TEST_CASE("h200-low-peak's peak misses are computed from its runs", "[hw][timeline]") {
  check_peak_misses("/results/hw/h200-low-peak");
}
