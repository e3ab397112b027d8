// A sweep: the cross product policies x guards x semaphores x seeds over one scenario, as a flat
// list of independent jobs (one RunResult each). Keeping jobs independent and indexed means the
// local thread runner can later be swapped for an MPI one without touching the output code.
//
// Durability: every finished job is written to DIR/jobs/<index>.json (whole or not at all) the
// moment it finishes, and DIR/sweep.json records the arguments. Re-running into the same DIR with
// the same arguments runs only the missing jobs; different arguments are refused unless `force`.
// Output (results.csv / results.json) is ordered by job index, so it is the same whatever the
// number of threads or the order jobs finished in. A sampled sweep (`--samples`), whose job is a
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

enum class ProgressStyle { Auto, Bar, Lines, Off };

struct SweepOptions {
  unsigned threads = 0;       // 0 = all cores
  bool force = false;         // discard DIR's job records (any sweep) and start over
  ProgressStyle progress = ProgressStyle::Auto;  // Auto: bar when stderr is a terminal
  std::ostream* progress_out = nullptr;          // default std::cerr
};

struct SweepOutcome {
  std::size_t total = 0;
  std::size_t ran = 0;     // jobs run by this call
  std::size_t reused = 0;  // jobs found already recorded in DIR
  std::vector<RunResult> results;  // by job index (a sampled sweep: by point, then sample)
  std::vector<SampleSummary> samples;  // a sampled sweep's points, by job index; else empty
};

/// Runs what is missing, then writes DIR/results.csv and DIR/results.json.
/// Throws SweepError on bad input / mismatched DIR; rethrows the first exception a job threw
/// (jobs finished before it stay recorded, so a re-run resumes).
SweepOutcome run_sweep(const SweepSpec& spec, const std::filesystem::path& dir, const JobFn& run_job,
                       const SweepOptions& options = {});

/// The canonical text of the arguments (what DIR/sweep.json holds and resume compares).
std::string sweep_manifest_json(const SweepSpec& spec);

}  // namespace allocsim::results
