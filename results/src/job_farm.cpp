// The job farm's collector side and its one instance per process (see job_farm.h): hand jobs to
// the local threads and to the worker ranks while they have room, collect what finishes, re-queue
// what a retired rank hands back.
#include "allocsim/results/job_farm.h"

#include <deque>
#include <mutex>
#include <algorithm>
#include <thread>

#include "job_farm_local.h"
#include "job_farm_remote.h"

namespace allocsim::results {
namespace {

using detail::FinishedJob;
using detail::LocalWorkers;
using detail::RemoteRanks;
using detail::WorkerMessage;

class Farm final : public JobFarm {
 public:
  explicit Farm(std::unique_ptr<RemoteRanks> remote, unsigned threads) : remote_(std::move(remote)), threads_(threads) {
    const int n = ranks();
    credits_.assign(std::size_t(n), 0);
    retired_.assign(std::size_t(n), false);
  }
  ~Farm() override { close(); }

  bool is_collector() const override { return rank() == 0; }
  int rank() const override { return remote_ ? remote_->rank() : 0; }
  int ranks() const override { return remote_ ? remote_->ranks() : 1; }
  void set_threads(unsigned threads) override { threads_ = threads; }
  unsigned threads() const override {
    if (threads_) return threads_;
    return remote_ ? remote_->default_threads() : std::max(1u, std::thread::hardware_concurrency());
  }

  std::vector<JobFailure> run(const FarmRun& run, const JobHandler& handler, const JobCollect& collect) override {
    if (!is_collector()) throw std::logic_error("JobFarm::run on a worker rank");
    LocalWorkers local(run.collector_runs_jobs || ranks() == 1 ? threads() : 0, handler);
    std::deque<std::size_t> pending(run.todo.begin(), run.todo.end());
    std::size_t outstanding = 0;  // handed out, not finished
    std::vector<JobFailure> failures;
    auto input_of = [&](std::size_t i) { return run.input ? run.input(i) : std::string(); };
    ran_by_rank_.assign(std::size_t(ranks()), 0);
    auto finished = [&](int rank, FinishedJob&& f) {
      --outstanding;
      ++ran_by_rank_[std::size_t(rank)];
      if (f.ok) collect(f.index, std::move(f.body));
      else failures.push_back({f.index, rank, std::move(f.body)});
      if (run.progress) run.progress->tick();
    };
    auto hand_back = [&](const std::vector<std::size_t>& jobs) {
      for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) pending.push_front(*it);
      outstanding -= jobs.size();
    };
    detail::Backoff backoff;
    bool any = true;
    while (!pending.empty() || outstanding > 0) {
      // Hand out: to the local threads one job queued behind each running one, to each worker
      // rank what its window asks for (credits), so the rest stays free for whichever asks next.
      while (!pending.empty() && local.alive() > 0 && local.in_flight() < local.alive() + 1) {
        local.add(pending.front(), input_of(pending.front()));
        pending.pop_front();
        ++outstanding;
      }
      for (int r = 1; r < ranks(); ++r)
        for (; !pending.empty() && !retired_[std::size_t(r)] && credits_[std::size_t(r)] > 0; pending.pop_front()) {
          remote_->send_job(r, pending.front(), input_of(pending.front()));
          --credits_[std::size_t(r)];
          ++outstanding;
        }
      // Collect.
      const bool waited_idle = !any;
      any = false;
      for (FinishedJob& f : local.take(waited_idle ? backoff.wait : std::chrono::microseconds(0))) {
        any = true;
        finished(0, std::move(f));
        if (local.alive() == 0) hand_back(local.drain_queue());
      }
      while (remote_) {
        std::optional<WorkerMessage> m = remote_->poll();
        if (!m) break;
        any = true;
        const std::size_t r = std::size_t(m->rank);
        switch (m->kind) {
          case WorkerMessage::Kind::Request: credits_[r] += m->credits; break;
          case WorkerMessage::Kind::Result:
            if (!m->job.crashed) ++credits_[r];  // a result asks for the next job
            finished(m->rank, std::move(m->job));
            break;
          case WorkerMessage::Kind::Returned:
            retired_[r] = true;
            hand_back(m->returned);
            break;
        }
      }
      if (!any && outstanding == 0 && !pending.empty() && local.alive() == 0 && every_rank_retired()) {
        for (std::size_t i : pending) {  // no thread left anywhere to run them
          failures.push_back({i, -1, "not run: every worker thread retired after a crash"});
          if (run.progress) run.progress->tick();
        }
        break;
      }
      any ? backoff.busy() : backoff.idle();
    }
    std::sort(failures.begin(), failures.end(), [](const JobFailure& a, const JobFailure& b) { return a.index < b.index; });
    return failures;
  }

  std::vector<std::size_t> jobs_by_rank() const override { return ran_by_rank_; }

  void serve(const JobHandler& handler) override {
    if (is_collector()) throw std::logic_error("JobFarm::serve on the collector");
    LocalWorkers local(threads(), handler);
    remote_->serve(local);
  }

  void close() {
    if (remote_ && is_collector() && !closed_) remote_->close();
    closed_ = true;
  }

 private:
  bool every_rank_retired() const {
    for (int r = 1; r < ranks(); ++r)
      if (!retired_[std::size_t(r)]) return false;
    return true;
  }

  std::unique_ptr<RemoteRanks> remote_;
  unsigned threads_ = 0;
  std::vector<unsigned> credits_;
  std::vector<bool> retired_;
  std::vector<std::size_t> ran_by_rank_;
  bool closed_ = false;
};

std::mutex g_farm_mu;
std::unique_ptr<Farm> g_farm;
detail::RemoteFactory g_remote_factory = nullptr;

}  // namespace

void detail::set_remote_factory(RemoteFactory factory) {
  std::lock_guard lock(g_farm_mu);
  g_remote_factory = factory;
}

JobFarm& JobFarm::get() {
  std::lock_guard lock(g_farm_mu);
  if (!g_farm) g_farm = std::make_unique<Farm>(g_remote_factory ? g_remote_factory() : nullptr, 0);
  return *g_farm;
}

void JobFarm::shutdown() {
  std::lock_guard lock(g_farm_mu);
  g_farm.reset();  // closes the workers, then MPI_Finalize
}

std::unique_ptr<JobFarm> make_thread_farm(unsigned threads) { return std::make_unique<Farm>(nullptr, threads); }

std::string format_failures(const std::vector<JobFailure>& failures,
                            const std::function<std::string(std::size_t)>& describe) {
  std::string out;
  for (const JobFailure& f : failures)
    out += "job " + std::to_string(f.index) + " (" + describe(f.index) + ")" +
           (f.rank > 0 ? " on rank " + std::to_string(f.rank) : "") + ": " + f.what + "\n";
  return out;
}

}  // namespace allocsim::results
