// What the two sweep runners share (private to results/src): sweep.cpp runs one RunResult per job,
// sweep_sampled.cpp N samples per job; both check the spec, claim DIR, keep one record per job
// under DIR/jobs, write results.json the same way and draw the same progress meter.
#pragma once
#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "allocsim/results/job_farm.h"
#include "allocsim/results/progress.h"
#include "allocsim/results/sweep.h"

namespace allocsim::results::detail {

/// SweepOptions::threads, or every hardware thread when it is 0.
inline unsigned thread_count(const SweepOptions& options) {
  return options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
}

/// Throws SweepError on an empty or repeated list, a capacity < 1, --seeds < 1, --samples < 0 or
/// --samples with more than one seed.
void validate_spec(const SweepSpec& spec);

/// DIR/sweep.json: create it, or check it matches. `force` always starts over: a rebuilt binary
/// must be able to redo a sweep whose arguments did not change. Throws SweepError (also for
/// --force with --shard or --merge: a shard must not wipe the others' records).
void claim_dir(const std::filesystem::path& dir, const SweepSpec& spec, const SweepOptions& options);

/// The farm a sweep runs on: options.farm, or one of options.threads threads made for it.
class FarmChoice {
 public:
  explicit FarmChoice(const SweepOptions& options)
      : own_(options.farm ? nullptr : make_thread_farm(thread_count(options))),
        farm_(options.farm ? options.farm : own_.get()) {
    if (options.farm && options.threads) farm_->set_threads(options.threads);
  }
  JobFarm* operator->() const { return farm_; }

 private:
  std::unique_ptr<JobFarm> own_;
  JobFarm* farm_;
};

/// Of the jobs DIR has no record of, the ones this process runs: all of them; a shard's share; or
/// none for a merge, which throws SweepError naming what is missing.
std::vector<std::size_t> jobs_to_run(const std::vector<std::size_t>& missing, const SweepOptions& options);

/// "policy immediate, guard none, semaphore 32, seed 3".
std::string describe_job(const SweepJob& job);

/// Throws SweepJobsFailed naming each failed job (`describe(index)`), when there is one.
void throw_if_failed(const std::vector<JobFailure>& failed, const std::filesystem::path& dir,
                     const std::function<std::string(std::size_t)>& describe);

/// DIR/jobs/<index>.json.
std::filesystem::path record_path(const std::filesystem::path& dir, std::size_t index);

/// results.json: the sweep's arguments, then every run in order; a sampled sweep adds its points'
/// summaries (`samples`, by job index) after the runs.
std::string results_json_text(const SweepSpec& spec, const std::vector<RunResult>& results,
                              const std::vector<SampleSummary>& samples = {});

ProgressMeter::Style pick_style(ProgressStyle s);


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
