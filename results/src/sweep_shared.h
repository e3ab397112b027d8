// What the two sweep runners share (private to results/src): sweep.cpp runs one RunResult per job,
// sweep_sampled.cpp N samples per job; both check the spec, claim DIR, keep one record per job
// under DIR/jobs, write results.json the same way and draw the same progress meter.
#pragma once
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "allocsim/results/job_farm.h"
#include "allocsim/results/progress.h"
#include "allocsim/results/sweep.h"
#include "sweep_journal.h"

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

/// The journal a run appends its records to (sweep_journal.h), opened at the first record: a
/// merge, which runs nothing, leaves DIR/jobs alone.
class LazyJournal {
 public:
  LazyJournal(const std::filesystem::path& dir, const SweepOptions& options) : dir_(dir), shard_(options.shard) {}
  void append(const std::string& record) {
    if (!journal_) journal_.emplace(dir_, journal_name(shard_.index, shard_.count));
    journal_->append(record);
  }

 private:
  std::filesystem::path dir_;
  SweepShard shard_;
  std::optional<RecordJournal> journal_;
};

/// results.json: the sweep's arguments, then every run in order; a sampled sweep adds its points'
/// summaries (`samples`, by job index) after the runs.
std::string results_json_text(const SweepSpec& spec, const std::vector<RunResult>& results,
                              const std::vector<SampleSummary>& samples = {});

ProgressMeter::Style pick_style(ProgressStyle s);


/// Resume: slot i holds the first of job i's records in DIR's journals that `parse(text, job i)`
/// accepts (an earlier run's), or nothing; returns the indices of the jobs without one, in
/// order: the jobs left to run.
template <class Slot, class Parse>
std::vector<std::size_t> reuse_records(const std::vector<SweepJob>& jobs, std::vector<std::optional<Slot>>& slots,
                                       const std::filesystem::path& dir, Parse&& parse) {
  std::map<std::size_t, std::vector<std::string>> records = read_journals(dir);
  slots.assign(jobs.size(), std::nullopt);
  std::vector<std::size_t> todo;
  for (const SweepJob& j : jobs) {
    if (const auto it = records.find(j.index); it != records.end())
      for (const std::string& text : it->second)
        if ((slots[j.index] = parse(text, j))) break;
    if (!slots[j.index]) todo.push_back(j.index);
  }
  return todo;
}

/// What both runners do with their jobs (one job, one record): on a worker rank, serve `handler`
/// and return false. On the collector: claim DIR, take what its journals already hold
/// (`parse(text, job)`), run the rest (a shard: its share) on the farm, journal each record as it
/// arrives and parse it into its slot as a resume would, and throw SweepJobsFailed naming what
/// failed (`describe`). Returns whether the outputs are to be written (not by a shard).
template <class Slot, class Parse>
bool run_recorded_jobs(const SweepSpec& spec, const std::filesystem::path& dir, const SweepOptions& options,
                       const std::vector<SweepJob>& jobs, const JobHandler& handler, Parse&& parse,
                       const std::function<std::string(std::size_t)>& describe, const char* unit,
                       std::vector<std::optional<Slot>>& slots, SweepOutcome& out) {
  FarmChoice farm(options);
  if (!farm->is_collector()) {
    farm->serve(handler);
    out.collector = out.outputs = false;
    return false;
  }
  claim_dir(dir, spec, options);
  out.total = jobs.size();
  const std::vector<std::size_t> missing = reuse_records(jobs, slots, dir, parse);
  out.reused = jobs.size() - missing.size();
  ProgressMeter meter(jobs.size(), out.reused, options.progress_out ? *options.progress_out : std::cerr,
                      pick_style(options.progress), "sweep", unit);
  FarmRun run{jobs_to_run(missing, options), {}, &meter};
  LazyJournal journal(dir, options);
  const std::vector<JobFailure> failed = farm->run(run, handler, [&](std::size_t index, std::string&& record) {
    journal.append(record);
    slots[index] = parse(record, jobs[index]);  // as a resumed run reads it
  });
  meter.finish();
  out.ran = run.todo.size() - failed.size();
  throw_if_failed(failed, dir, describe);
  out.outputs = !options.shard.active();
  return out.outputs;
}

}  // namespace allocsim::results::detail
