// What the two sweep runners share (private to results/src): sweep.cpp runs one RunResult per job,
// sweep_sampled.cpp N samples per job; both check the spec, claim DIR, keep one record per job
// under DIR/jobs, write results.json the same way and draw the same progress meter.
#pragma once
#include <algorithm>
#include <filesystem>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "allocsim/results/progress.h"
#include "allocsim/results/sweep.h"

namespace allocsim::results::detail {

/// Throws SweepError on an empty or repeated list, a capacity < 1, --seeds < 1, --samples < 0 or
/// --samples with more than one seed.
void validate_spec(const SweepSpec& spec);

/// DIR/sweep.json: create it, or check it matches. `force` always starts over: a rebuilt binary
/// must be able to redo a sweep whose arguments did not change. Throws SweepError.
void claim_dir(const std::filesystem::path& dir, const SweepSpec& spec, bool force);

/// DIR/jobs/<index>.json.
std::filesystem::path record_path(const std::filesystem::path& dir, std::size_t index);

/// results.json: the sweep's arguments, then every run in order; a sampled sweep adds its points'
/// summaries (`samples`, by job index) after the runs.
std::string results_json_text(const SweepSpec& spec, const std::vector<RunResult>& results,
                              const std::vector<SampleSummary>& samples = {});

ProgressMeter::Style pick_style(ProgressStyle s);

/// SweepOptions::threads, or every hardware thread when it is 0.
inline unsigned thread_count(const SweepOptions& options) {
  return options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
}

/// Resume: slot i holds `load(job i)` (a record an earlier run left in DIR, or nothing); returns
/// the indices of the jobs without one, in order: the jobs left to run.
template <class Slot, class Load>
std::vector<std::size_t> reuse_records(const std::vector<SweepJob>& jobs, std::vector<std::optional<Slot>>& slots,
                                       Load&& load) {
  slots.assign(jobs.size(), std::nullopt);
  std::vector<std::size_t> todo;
  for (const SweepJob& j : jobs) {
    slots[j.index] = load(j);
    if (!slots[j.index]) todo.push_back(j.index);
  }
  return todo;
}

}  // namespace allocsim::results::detail
