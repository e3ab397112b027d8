// The job farm over MPI (see job_farm.h for the rules, job_farm_remote.h for the interface).
// Messages are raw bytes (MPI_CHAR) with one tag per kind, so a message is one MPI send: a
// little-endian header (job index, flags, credits) and the payload or input after it. Only the
// main thread calls MPI; it polls with MPI_Iprobe and a growing sleep rather than a blocking
// receive, which Open MPI implements by spinning a core.
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <mpi.h>
#include <sched.h>
#include <thread>

#include "allocsim/results/job_farm.h"
#include "job_farm_remote.h"

namespace allocsim::results::detail {
namespace mpi = boost::mpi;

namespace {

enum Tag : int { kRequest = 1, kResult = 2, kReturned = 3, kJob = 4, kClose = 5 };

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

std::uint64_t get_u64(const std::string& in, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(in.at(at + std::size_t(i)))) << (8 * i);
  return v;
}

/// Worker threads for a rank when --jobs does not say (RemoteRanks::default_threads). Collective
/// (MPI_Comm_split_type): every rank calls it once, at start-up.
unsigned count_default_threads(int rank) {
  MPI_Comm local;
  int on_node = 1;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
    MPI_Comm_size(local, &on_node);
    MPI_Comm_free(&local);
  }
  const unsigned node = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) == 0 && unsigned(CPU_COUNT(&mine)) < node)
    return unsigned(CPU_COUNT(&mine));  // bound: these cores are this rank's
  return std::max(1u, node / unsigned(std::max(1, on_node)));
}

/// How many jobs a rank with `threads` threads holds at a time so that none waits for its next job:
/// a result's trip to the collector and the next job's trip back take up to two polling sleeps
/// (Backoff, 0.5 ms each), so each thread keeps about 2 ms of work queued, 64 jobs at most.
/// Jobs of 2 ms or more: one queued behind each running one.
std::size_t job_window(unsigned threads, double mean_job_seconds) {
  const double per_thread = mean_job_seconds > 0 ? std::ceil(2e-3 / mean_job_seconds) : 1;
  return std::size_t(threads) * (1 + std::size_t(std::clamp(per_thread, 1.0, 63.0)));
}

}  // namespace

class MpiRanks final : public RemoteRanks {
 public:
  MpiRanks() : env_(mpi::threading::funneled) {
    if (env_.thread_level() < mpi::threading::funneled)
      throw std::runtime_error("MPI: this MPI library does not allow threads (funneled)");
    default_threads_ = count_default_threads(world_.rank());
  }
  int rank() const override { return world_.rank(); }
  int ranks() const override { return world_.size(); }

  unsigned default_threads() const override { return default_threads_; }

  std::optional<WorkerMessage> poll() override {
    std::string buf;
    const std::optional<mpi::status> st = receive(mpi::any_source, buf);
    if (!st) return std::nullopt;
    WorkerMessage m;
    m.rank = st->source();
    switch (st->tag()) {
      case kRequest:
        m.kind = WorkerMessage::Kind::Request;
        m.credits = unsigned(get_u64(buf, 0));
        break;
      case kResult:
        m.kind = WorkerMessage::Kind::Result;
        m.job.index = get_u64(buf, 0);
        m.job.ok = buf.at(8) & 1;
        m.job.crashed = buf.at(8) & 2;
        m.job.body = buf.substr(9);
        break;
      case kReturned:
        m.kind = WorkerMessage::Kind::Returned;
        for (std::size_t at = 0; at + 8 <= buf.size(); at += 8) m.returned.push_back(get_u64(buf, at));
        break;
      default:
        throw std::runtime_error("MPI: unexpected message tag " + std::to_string(st->tag()) + " from rank " +
                                 std::to_string(st->source()));
    }
    return m;
  }

  void send_job(int rank, std::size_t index, const std::string& input) override {
    std::string msg;
    put_u64(msg, index);
    msg += input;
    send(rank, kJob, msg);
  }

  void close() override {
    for (int r = 1; r < world_.size(); ++r) send(r, kClose, "");
  }

  void serve(LocalWorkers& local) override {
    // The jobs this rank holds at a time (running, queued, or on their way): at first one queued
    // behind each running one; more when jobs turn out short (job_window).
    std::size_t window = 0;
    auto widen_to = [&](std::size_t want) {
      if (want <= window) return;
      std::string msg;
      put_u64(msg, want - window);
      send(0, kRequest, msg);
      window = want;
    };
    widen_to(2 * std::size_t(local.alive()));
    bool closing = false, returned = false;
    Backoff backoff;
    while (!closing || local.in_flight() > 0) {
      bool any = false;
      std::string buf;
      while (const std::optional<mpi::status> st = receive(0, buf)) {
        any = true;
        if (st->tag() == kClose) closing = true;
        else if (st->tag() == kJob) local.add(get_u64(buf, 0), buf.substr(8));
      }
      for (FinishedJob& f : local.take(any ? std::chrono::microseconds(0) : backoff.wait)) {
        any = true;
        std::string out;
        put_u64(out, f.index);
        out.push_back(char((f.ok ? 1 : 0) | (f.crashed ? 2 : 0)));
        out += f.body;
        send(0, kResult, out);
      }
      if (any) widen_to(job_window(local.alive(), local.mean_job_seconds()));
      if (local.alive() == 0) {  // every thread retired after a crash: hand back what is queued
        std::string back;
        for (std::size_t i : local.drain_queue()) put_u64(back, i);
        if (!back.empty() || !returned) send(0, kReturned, back);
        returned = true;
      }
      any ? backoff.busy() : backoff.idle();
    }
  }

 private:
  /// The next message from `source`, whole, if one has arrived.
  std::optional<mpi::status> receive(int source, std::string& buf) {
    const boost::optional<mpi::status> st = world_.iprobe(source, mpi::any_tag);
    if (!st) return std::nullopt;
    const int n = st->count<char>().value_or(0);  // boost::optional
    buf.assign(std::size_t(n), '\0');
    return world_.recv(st->source(), st->tag(), buf.data(), n);
  }
  void send(int rank, int tag, const std::string& msg) { world_.send(rank, tag, msg.data(), int(msg.size())); }

  mpi::environment env_;
  mpi::communicator world_;
  unsigned default_threads_ = 1;
};

}  // namespace allocsim::results::detail

namespace allocsim::results {

void enable_mpi_farm() {
  detail::set_remote_factory([]() -> std::unique_ptr<detail::RemoteRanks> {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
      if (std::getenv(v)) return std::make_unique<detail::MpiRanks>();
    return nullptr;
  });
}

}  // namespace allocsim::results
