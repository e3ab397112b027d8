// See job_farm_local.h.
#include "job_farm_local.h"

#include <csignal>
#include <cstdlib>
#include <stdexcept>

#include "job_crash_guard.h"

namespace allocsim::results::detail {

LocalWorkers::LocalWorkers(unsigned threads, JobHandler handler) : handler_(std::move(handler)), alive_(threads) {
  for (unsigned t = 0; t < threads; ++t) threads_.emplace_back([this] { work(); });
}

LocalWorkers::~LocalWorkers() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  jobs_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void LocalWorkers::add(std::size_t index, std::string input) {
  {
    std::lock_guard lock(mu_);
    queue_.emplace_back(index, std::move(input));
  }
  jobs_cv_.notify_one();
}

std::vector<FinishedJob> LocalWorkers::take(std::chrono::microseconds wait) {
  std::unique_lock lock(mu_);
  if (done_.empty() && wait.count() > 0) {
    main_waiting_ = true;
    done_cv_.wait_for(lock, wait, [&] { return !done_.empty(); });
    main_waiting_ = false;
  }
  std::vector<FinishedJob> out;
  out.swap(done_);
  return out;
}

unsigned LocalWorkers::alive() const {
  std::lock_guard lock(mu_);
  return alive_;
}

std::vector<std::size_t> LocalWorkers::drain_queue() {
  std::lock_guard lock(mu_);
  std::vector<std::size_t> out;
  for (const auto& [index, input] : queue_) out.push_back(index);
  queue_.clear();
  return out;
}

double LocalWorkers::mean_job_seconds() const {
  std::lock_guard lock(mu_);
  return recent_job_seconds_;
}

std::size_t LocalWorkers::in_flight() const {
  std::lock_guard lock(mu_);
  return queue_.size() + running_;
}

void LocalWorkers::work() {
  install_crash_handlers();
  for (;;) {
    std::pair<std::size_t, std::string> job;
    {
      std::unique_lock lock(mu_);
      jobs_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    FinishedJob f;
    f.index = job.first;
    const auto start = std::chrono::steady_clock::now();
    try {
      const int sig = run_guarded([&] {
        inject_fault(job.first);
        f.body = handler_(job.first, job.second);
      });
      f.ok = sig == 0;
      if (sig != 0) {
        f.crashed = true;
        f.body = "crashed (" + describe_signal(sig) + ")";
      }
    } catch (const std::exception& e) {
      f.body = e.what();
    } catch (...) {
      f.body = "unknown exception";
    }
    const bool crashed = f.crashed;
    bool wake = false;
    {
      std::lock_guard lock(mu_);
      --running_;
      if (crashed) --alive_;
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      recent_job_seconds_ = recent_job_seconds_ > 0 ? 0.9 * recent_job_seconds_ + 0.1 * took : took;
      done_.push_back(std::move(f));
      wake = main_waiting_;
    }
    // Only a main thread that waits is woken: one that is busy takes this at its next look, and
    // a wake-up per job (a futex call and a context switch) would cost short jobs a tenth more.
    if (wake) done_cv_.notify_one();
    if (crashed) return;  // retired: the crashed job's state (locks, heap) is not to be trusted
  }
}

void inject_fault(std::size_t index) {
  static const char* spec = std::getenv("ALLOCSIM_FAULT_JOB");
  if (!spec) return;
  const std::string s = spec;
  const auto colon = s.find(':');
  if (colon == std::string::npos || std::stoull(s.substr(colon + 1)) != index) return;
  const std::string kind = s.substr(0, colon);
  if (kind == "throw") throw std::runtime_error("injected failure (ALLOCSIM_FAULT_JOB)");
  if (kind == "crash") std::raise(SIGSEGV);
  if (kind == "kill") std::raise(SIGKILL);
}

}  // namespace allocsim::results::detail
