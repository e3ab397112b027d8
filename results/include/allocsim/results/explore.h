// `allocsim explore` (issue 18, docs/explore.md): every schedule that deviates from the timed run
// by at most `bound` delays, each delay holding one step until a step of another agent is done.
// Pruning keeps a delay only when the two steps conflict (touch one stream, pool, semaphore,
// mutex or byte range, one of them changing it) and neither happened before the other: holding a
// step past one it commutes with leads to an equivalent schedule.
//
// Levels are explored in order (0 delays, 1, ...), the schedules of a level on the job farm
// (job_farm.h: threads, or MPI ranks under mpirun), each result in its own slot, so the report is
// the same bytes for any number of threads or ranks. A level that shows a deadlock or a manifest
// race ends the search: its first such schedule is the minimal-delay witness.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "allocsim/core/scenario.h"
#include "allocsim/core/schedule.h"
#include "allocsim/engine/step_schedule.h"
#include "allocsim/results/job_farm.h"
#include "allocsim/results/progress.h"
#include "allocsim/results/run_config.h"

namespace allocsim {

struct ExploreOptions {
  int bound = 2;                   // most delays per schedule
  bool prune = true;               // false: plain enumeration (every feasible delay)
  int jobs = 0;                    // threads of the farm explore() makes when given none; 0: every core
  std::uint64_t max_schedules = 0; // 0: no limit; past it the search stops, its verdict "incomplete"
  /// >= 0: the witness must corrupt this execution (0-based, as `run --samples` numbers them): the
  /// search goes on past levels whose manifest races hit only other executions.
  int execution = -1;
  /// The witness must be one `allocsim-hw validate --schedule` can force: every hold ends at its
  /// `until` step (none "until nothing else could run": the GPU gates, it sets no times), and no
  /// hold is of or until a callback.
  bool forceable = false;
};

/// What one schedule led to, worst first.
enum class ScheduleVerdict : std::uint8_t { Deadlock, Manifest, Latent, Stopped, Clean };
std::string_view verdict_name(ScheduleVerdict v);

struct ExploredSchedule {
  std::vector<StepHold> delays;
  std::vector<HoldOutcome> holds;  // parallel to delays
  ScheduleVerdict verdict = ScheduleVerdict::Clean;
  std::string detail;     // the deadlock / stop message, or the first race finding
  std::string signature;  // what distinguishes outcomes (verdict, findings' kinds and buffers)
  std::vector<int> manifest_executions;  // the executions a manifest race corrupted, ascending
};

struct ExploreLevel {
  int delays = 0;
  std::uint64_t schedules = 0;          // run at this level
  std::uint64_t candidates_pruned = 0;  // delays the plain enumeration has and pruning dropped
  std::uint64_t duplicates = 0;         // delay sets already reached in another order
};

struct ExploreReport {
  /// false: this process is a worker rank of an MPI farm; it played schedules for the collector
  /// (rank 0), which alone has the report (the rest of this one is empty).
  bool collector = true;
  std::string scenario, policy, guard;
  int semaphore = 0;
  std::uint64_t seed = 0;
  ExploreOptions options;
  std::vector<ExploreLevel> levels;
  std::uint64_t schedules = 0;          // all levels
  std::uint64_t distinct_outcomes = 0;
  std::uint64_t by_verdict[5] = {};     // indexed by ScheduleVerdict
  /// Plain enumeration's count up to the bound, from the timed run's feasible delays: the number
  /// of sets of at most `bound` of them (what pruning is measured against; computed, not run).
  double plain_estimate = 0;
  std::uint64_t feasible_delays_timed = 0;     // of the timed run: every delay plain enumeration has
  std::uint64_t conflicting_delays_timed = 0;  // of them, the ones pruning keeps
  bool complete = true;                 // every level up to the bound was explored
  int stopped_at_level = -1;            // the level whose witness ended the search (-1: none)
  std::vector<ExploredSchedule> firsts; // the first schedule of each verdict seen, worst first
  /// Per execution: the fewest delays that made a manifest race corrupt it (-1: none explored did).
  std::vector<int> fewest_delays_to_corrupt;
  /// With options.execution: the first schedule that corrupts it (the witness then).
  std::optional<ExploredSchedule> execution_witness;
  /// The witness (the first deadlock, else manifest, else latent race), if any.
  const ExploredSchedule* witness() const;
  std::string verdict_line() const;
};

/// A progress meter for one level of `total` schedules (`level` delays each); called per level.
using ExploreProgress = std::function<std::unique_ptr<results::ProgressMeter>(int level, std::size_t total)>;

/// Plays the schedules on `farm` (null: a farm of options.jobs threads). On a worker rank it
/// serves the collector's jobs until the collector is done and returns a report whose `collector`
/// is false. Throws RunInputError (bad policy, guard, bound; a schedule that fails to play, named).
ExploreReport explore(const Scenario& scenario, const RunConfig& config, const ExploreOptions& options,
                      const ExploreProgress& progress = {}, results::JobFarm* farm = nullptr);

std::string format_explore(const ExploreReport& r, const Program& program);
boost::json::object explore_to_json(const ExploreReport& r, const Program& program);
/// "stream compute op 2" / "host op 14 (release X, line 40)" / "callback 3".
std::string describe_step(const StepRef& s, const Program& program);
/// One line per hold and what became of it ("schedule  hold X until Y  (held 1.0 ms)").
std::string format_holds(const std::vector<StepHold>& holds, const std::vector<HoldOutcome>& outcomes,
                         const Program& program);
/// The schedule file of `schedule` (docs/explore.md): `scenario` and `sets` as the user gave them
/// (a built-in name or a path; --set values as typed), the rest from the report.
Schedule schedule_file_of(const ExploreReport& r, const ExploredSchedule& schedule, const std::string& scenario,
                          const std::map<std::string, std::string>& sets, const Program& program);

}  // namespace allocsim
