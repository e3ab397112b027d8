// What one schedule of `allocsim explore` sends through the job farm (job_farm.h): the job's input
// (the schedule's delays, and whether to expand it) and its payload (what playing it gave). Under
// mpirun these cross process boundaries, and the report must be the same bytes for any number of
// ranks, so the encoding is exact: integers in decimal, strings as "<length>:<bytes>" (any byte
// goes, nothing is escaped), values separated by one space. A compact text format rather than
// JSON because the collector's main thread decodes every payload of a level, one after another,
// and a level can hold hundreds of thousands of schedules.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "allocsim/engine/step_schedule.h"
#include "allocsim/results/explore.h"

namespace allocsim::explore_detail {

/// One schedule to play: its delays, and whether to list the schedules one more delay reaches
/// (every level but the last).
struct ScheduleJob {
  std::vector<StepHold> delays;
  bool expand = false;
};

/// What playing one schedule gives the collector.
struct Played {
  ExploredSchedule schedule;
  std::vector<std::vector<StepHold>> children;  // the schedules of the next level it reaches
  std::uint64_t pruned = 0;                     // feasible delays pruning dropped
};

std::string encode_job(const ScheduleJob& job);
std::string encode_played(const Played& played);
/// Throw std::runtime_error on a malformed message.
ScheduleJob decode_job(const std::string& text);
Played decode_played(const std::string& text);

}  // namespace allocsim::explore_detail
