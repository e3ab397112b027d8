// Where the jobs of a long command run (issue 19): a sweep's runs, `--samples`' samples, a level of
// `allocsim explore`'s schedules. One process with worker threads, or, when mpirun / srun started
// the process, every MPI rank: rank 0 collects (and works), the others serve. The command code is
// the same for both: the collector calls run(), a worker's role is serve() (commands reach it
// through JobFarm::get().is_collector()).
//
// Why a farm of our own over Boost.MPI and not a library scheduler: jobs differ in cost by orders
// of magnitude (a policy that blocks the host against one that does not; a schedule that stops at
// a deadlock), so work is handed out one job at a time to whichever thread asks, never split up
// front, and every job's result comes back to the one process that writes files. Boost.MPI gives
// the transport; the dispatching is these few rules:
//   - each worker rank holds a window of jobs: one queued behind each running one, widened
//     while jobs turn out shorter than the 2 ms a result's trip and the next job's take, so a
//     thread always has its next job queued while its result travels; each result it returns is
//     a request for one more job;
//   - the collector's main thread only dispatches and collects: it waits on a condition variable
//     and polls MPI with a growing sleep (20 us to 500 us), so it does not eat a core (Open MPI's
//     blocking receive spins); its worker threads run jobs like any rank's;
//   - the payloads reach `collect` on the collector's main thread, one at a time, in the order
//     they finish; the commands store them by job index, so their files are the same bytes for any
//     number of ranks or threads.
//
// Failures: a job that throws, or crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: the thread
// jumps back out of the job, and its process takes no more jobs), is reported to the collector
// with the job's index and its rank; the other jobs still run, and the run's result lists every
// failure. A rank that dies outright (killed) ends the MPI job: what the collector had already
// recorded stays on disk, and the command's resume (sweeps) picks up from there.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "allocsim/results/progress.h"

namespace allocsim::results {

/// Runs one job on any rank and thread: its index and the input the collector gave it; returns
/// the payload the collector receives. Must be deterministic per job (the same bytes wherever it
/// runs). Throws to fail the job.
using JobHandler = std::function<std::string(std::size_t index, const std::string& input)>;
/// Receives one finished job's payload, on the collector's main thread, one call at a time.
using JobCollect = std::function<void(std::size_t index, std::string&& payload)>;

struct JobFailure {
  std::size_t index = 0;
  int rank = 0;      // where it ran
  std::string what;  // the exception's message, or "crashed (signal 11, SIGSEGV)"
};

struct FarmRun {
  std::vector<std::size_t> todo;  // job indices, handed out in this order
  /// The input a job needs beyond its index (explore: the schedule's delays); empty when unset.
  std::function<std::string(std::size_t)> input;
  ProgressMeter* progress = nullptr;  // ticked once per finished job (failed ones too)
  /// false: with other ranks to run them, the collector hands out every job and runs none (how
  /// bench_mpi measures the cost of the MPI path alone).
  bool collector_runs_jobs = true;
};

class JobFarm {
 public:
  /// This process's farm. The first call decides: MPI when enable_mpi_farm() was called and the
  /// environment shows a launcher (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK or PMI_SIZE), worker
  /// threads only otherwise.
  static JobFarm& get();
  /// main() ends the farm this way before returning: workers still serving are released, MPI is
  /// finalized. Safe when get() was never called.
  static void shutdown();

  virtual ~JobFarm() = default;
  virtual bool is_collector() const = 0;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  /// Worker threads per process: the --jobs value, or when 0 every core for one process; under MPI
  /// the cores the rank is bound to (mpirun binds a rank to a core by default, srun to its
  /// --cpus-per-task), or the node's cores shared among its ranks.
  virtual void set_threads(unsigned threads) = 0;
  virtual unsigned threads() const = 0;

  /// Collector: runs `run.todo` on every rank's threads; `collect` gets each finished payload.
  /// Returns the failed jobs, by index.
  virtual std::vector<JobFailure> run(const FarmRun& run, const JobHandler& handler, const JobCollect& collect) = 0;
  /// Collector: the jobs each rank ran (index: rank) in the last run(), failed ones included.
  virtual std::vector<std::size_t> jobs_by_rank() const = 0;
  /// A worker rank: runs the collector's jobs with `handler` until the collector closes the farm.
  virtual void serve(const JobHandler& handler) = 0;
};

/// Lets get() start MPI when a launcher started this process. The allocsim CLI calls it first
/// thing; it lives in the allocsim_mpi_farm library, so other programs that link the results
/// library (allocsim-hw, which runs where no MPI is installed) stay free of MPI.
void enable_mpi_farm();

/// The farm of one process with `threads` worker threads (0 = every core), whatever the
/// environment: what get() gives without a launcher, and what tests use directly.
std::unique_ptr<JobFarm> make_thread_farm(unsigned threads);

/// "job 17 (rank 1): what" lines, one per failure, each job named by `describe(index)`.
std::string format_failures(const std::vector<JobFailure>& failures,
                            const std::function<std::string(std::size_t)>& describe);

}  // namespace allocsim::results
