// The job farm's link to the other MPI ranks (job_farm_mpi.cpp), private to results/src: what the
// collector's dispatch loop (job_farm.cpp) polls and sends, and the worker ranks' serving loop.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "job_farm_local.h"

namespace allocsim::results::detail {

struct WorkerMessage {
  enum class Kind { Request, Result, Returned } kind = Kind::Request;
  int rank = 0;
  unsigned credits = 0;               // Request: jobs the rank asks for
  FinishedJob job;                    // Result
  std::vector<std::size_t> returned;  // Returned: jobs it will not run (every thread retired)
};

class RemoteRanks {
 public:
  virtual ~RemoteRanks() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  /// Worker threads for this rank when --jobs does not say: the cores it is bound to (mpirun
  /// binds, srun --cpus-per-task too), else the node's cores shared by the ranks on the node.
  virtual unsigned default_threads() const = 0;
  /// Collector: the next message from a worker rank, if one has arrived.
  virtual std::optional<WorkerMessage> poll() = 0;
  virtual void send_job(int rank, std::size_t index, const std::string& input) = 0;
  /// Collector: every worker rank's serve() returns.
  virtual void close() = 0;
  /// A worker rank: ask for jobs, run them on `local`, send each result back, until closed.
  virtual void serve(LocalWorkers& local) = 0;
};

/// What JobFarm::get() calls to reach the other ranks; enable_mpi_farm() (job_farm_mpi.cpp) sets
/// it. It returns nothing when no launcher started this process; otherwise MPI_Init (threads
/// "funneled": only the main thread calls MPI), and MPI_Finalize when the result is destroyed.
using RemoteFactory = std::unique_ptr<RemoteRanks> (*)();
void set_remote_factory(RemoteFactory factory);

}  // namespace allocsim::results::detail
