// The worker threads of one process of the job farm (job_farm.h), private to results/src: a queue
// of jobs, threads that run them through the crash guard (job_crash_guard.h), and the finished
// jobs waiting for the process's main thread, which alone talks to other ranks (MPI "funneled").
#pragma once
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "allocsim/results/job_farm.h"

namespace allocsim::results::detail {

struct FinishedJob {
  std::size_t index = 0;
  bool ok = false;
  bool crashed = false;  // the thread that ran it has retired
  std::string body;      // the payload, or what went wrong
};

class LocalWorkers {
 public:
  LocalWorkers(unsigned threads, JobHandler handler);
  ~LocalWorkers();
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  void add(std::size_t index, std::string input);
  /// What finished since the last call; waits up to `wait` for something when nothing has.
  std::vector<FinishedJob> take(std::chrono::microseconds wait);
  /// Threads that have not retired after a crash.
  unsigned alive() const;
  /// Jobs queued and not started (to hand elsewhere once every thread has retired).
  std::vector<std::size_t> drain_queue();
  /// Jobs queued or running.
  std::size_t in_flight() const;
  /// The time of recent jobs: a moving mean (each job weighs a tenth), so a rank that serves one
  /// run of long jobs and then one of short ones (explore's levels, bench_mpi) follows; 0 before
  /// the first job.
  double mean_job_seconds() const;

 private:
  void work();
  JobHandler handler_;
  mutable std::mutex mu_;
  std::condition_variable jobs_cv_, done_cv_;
  std::deque<std::pair<std::size_t, std::string>> queue_;
  std::vector<FinishedJob> done_;
  std::size_t running_ = 0;
  double recent_job_seconds_ = 0;
  unsigned alive_ = 0;
  bool stop_ = false;
  bool main_waiting_ = false;  // the main thread is in take(), waiting for a finished job
  std::vector<std::thread> threads_;
};

/// How long a process's main thread waits for news while nothing happens: from 20 us, doubling to
/// 500 us; back to 20 us on any message. Short enough for jobs of a millisecond, long enough that
/// waiting costs no core.
struct Backoff {
  std::chrono::microseconds wait{20};
  void idle() { wait = std::min(wait * 2, std::chrono::microseconds(500)); }
  void busy() { wait = std::chrono::microseconds(20); }
};

/// The fault a test asks for through ALLOCSIM_FAULT_JOB ("throw:N", "crash:N" or "kill:N": job N
/// throws, crashes with SIGSEGV, or kills its process with SIGKILL): how the failure paths and the
/// resume after an interrupted MPI run are tested without a real faulty job.
void inject_fault(std::size_t index);

}  // namespace allocsim::results::detail
