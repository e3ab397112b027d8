// A sweep: the cross product policies x guards x semaphores x seeds over one scenario, as a flat
// list of independent jobs (one RunResult each), run on the job farm (job_farm.h): this process's
// threads, or every MPI rank when mpirun / srun started allocsim. Only the collector (rank 0)
// touches DIR.
//
// Durability: every finished job is appended to a journal in DIR/jobs (one line each, the moment
// it reaches the collector; src/sweep_journal.h says why journals), and DIR/sweep.json records
// the arguments. Re-running into the same DIR with
// the same arguments runs only the missing jobs; different arguments are refused unless `force`.
// Output (results.csv / results.json) is ordered by job index, so it is the same whatever the
// number of threads or ranks, or the order jobs finished in. A job that fails (throws, crashes) is
// named in SweepJobsFailed once every other job has finished and been recorded.
//
// Sharding (job arrays without MPI): shard i of N runs the jobs whose index is i modulo N into
// the shared DIR (a journal of its own) and writes nothing else; the merge (`merge`) runs nothing and writes the outputs
// from the records, refusing while any is missing. A sampled sweep (`--samples`), whose job is a
// point played N times, has its own runner with the same contract: sweep_sampled.h.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "allocsim/core/result.h"
#include "allocsim/results/job_farm.h"
#include "allocsim/results/sample_summary.h"

namespace allocsim::results {

struct SweepSpec {
  std::string scenario;
  std::vector<std::string> policies;  // resolved names (no "all")
  std::vector<std::string> guards;
  std::vector<int> semaphores;
  int seeds = 1;                // N seeds = base_seed + 0..N-1
  std::uint64_t base_seed = 1;  // the scenario's seed
  std::vector<std::pair<std::string, std::string>> sets;  // --set key=value, in command-line order
  // begin_execution ops in the scenario's program (0 = unknown): at a semaphore capacity of at
  // least this many, every execution can be in flight and the semaphore never blocks, so the
  // report can say what bounds the growth with the capacity.
  int executions = 0;
  // The --platform file as given ("" = the scenario's platform). A sampled sweep needs one with a
  // spread; an unsampled one runs with its fixed costs.
  std::string platform;
  // > 0: a sampled sweep (sweep_sampled.h): each point plays the program this many times, costs
  // drawn from the platform's spread, sample i with seed base_seed + i; `seeds` must then be 1.
  int samples = 0;
};

/// One run of the sweep. `index` is its position in the cross product (policy-major, then guard,
/// semaphore, seed): the row order of every output.
struct SweepJob {
  std::size_t index = 0;
  std::string policy, guard;
  int semaphore = 0;
  std::uint64_t seed = 0;
};

std::vector<SweepJob> expand_jobs(const SweepSpec& spec);

/// Runs one job. Must be thread-safe (called concurrently) and deterministic per job.
using JobFn = std::function<RunResult(const SweepJob&)>;

/// Bad sweep input or a DIR that belongs to another sweep: the CLI turns it into exit status 2.
struct SweepError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Some jobs failed; every other job finished and is recorded in DIR (a re-run resumes).
struct SweepJobsFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class ProgressStyle { Auto, Bar, Lines, Off };

/// `--shard INDEX/COUNT`: this process runs the jobs whose index is INDEX modulo COUNT.
struct SweepShard {
  int index = 0, count = 1;
  bool active() const { return count > 1; }
};
/// "2/8" -> {2, 8}. Throws SweepError unless 0 <= INDEX < COUNT.
SweepShard parse_shard(const std::string& text);

struct SweepOptions {
  JobFarm* farm = nullptr;    // nullptr: a farm of `threads` threads in this process
  unsigned threads = 0;       // 0 = all cores (under MPI: per rank, default 1)
  bool force = false;         // discard DIR's job records (any sweep) and start over
  ProgressStyle progress = ProgressStyle::Auto;  // Auto: bar when stderr is a terminal
  std::ostream* progress_out = nullptr;          // default std::cerr
  SweepShard shard;           // run only this shard's jobs, write only their records
  bool merge = false;         // run nothing: write the outputs from DIR's records (all must be there)
};

struct SweepOutcome {
  bool collector = true;   // false: a worker rank, which served jobs and wrote nothing
  bool outputs = true;     // false: a shard, which wrote only its records
  std::size_t total = 0;
  std::size_t ran = 0;     // jobs run by this call
  std::size_t reused = 0;  // jobs found already recorded in DIR
  std::vector<RunResult> results;  // by job index (a sampled sweep: by point, then sample)
  std::vector<SampleSummary> samples;  // a sampled sweep's points, by job index; else empty
};

/// Runs what is missing, then writes DIR/results.csv and DIR/results.json.
/// Throws SweepError on bad input / mismatched DIR / a merge with records missing, and
/// SweepJobsFailed when jobs failed (naming each; the others finished and are recorded).
SweepOutcome run_sweep(const SweepSpec& spec, const std::filesystem::path& dir, const JobFn& run_job,
                       const SweepOptions& options = {});

/// What a sweep job runs wherever the farm sends it: `run_job`, then the job's record text. Keeps
/// references to `spec` and `jobs` (expand_jobs(spec)). run_sweep serves with it; a program that
/// serves the farm itself (bench/bench_mpi.cpp) does too.
JobHandler sweep_job_handler(const SweepSpec& spec, const std::vector<SweepJob>& jobs, const JobFn& run_job);

/// The canonical text of the arguments (what DIR/sweep.json holds and resume compares).
std::string sweep_manifest_json(const SweepSpec& spec);

}  // namespace allocsim::results
