// plan_forcing and ScheduleForcing (schedule_forcing.h).
#include "allocsim/hw/schedule_forcing.h"

#include <algorithm>

namespace allocsim::hw {
namespace {

using Agent = StepLocator::Agent;

bool is_device_op(HostOpKind k) { return k == HostOpKind::Kernel || k == HostOpKind::Memset || k == HostOpKind::Copy; }

[[noreturn]] void fail(const std::string& source, std::size_t i, const std::string& what) {
  throw ScheduleError(source + ": delays[" + std::to_string(i) + "]: " + what);
}

}  // namespace

std::vector<std::vector<std::size_t>> launch_sites(const Program& program) {
  std::vector<std::vector<std::size_t>> sites(program.streams.size());
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const HostOp& op = program.ops[i];
    if (is_device_op(op.kind) && op.stream >= 0 && std::size_t(op.stream) < sites.size())
      sites[std::size_t(op.stream)].push_back(i);
  }
  return sites;
}

std::vector<ForcedDelay> plan_forcing(const Schedule& s, const Program& program, const std::string& source) {
  check_schedule_streams(s, program, source);
  const auto sites = launch_sites(program);
  std::vector<ForcedDelay> out;
  for (std::size_t i = 0; i < s.delays.size(); ++i) {
    const Delay& d = s.delays[i];
    const std::string what = describe(d.hold) + " until " + describe(d.until);
    if (d.hold.agent == Agent::Callback || d.until.agent == Agent::Callback)
      fail(source, i, what + ": not forceable on the GPU yet (the callback thread has no gate)");
    ForcedDelay f;
    f.delay = d;
    // A step the program never takes would leave its gate spinning to the time-out (or its
    // until step never done) in every trial: a wrong file, said at load time.
    for (const StepLocator* l : {&d.hold, &d.until}) {
      if (l->agent == Agent::Host && std::size_t(l->index) >= program.ops.size())
        fail(source, i, describe(*l) + " is past the program's end (" + std::to_string(program.ops.size()) + " ops)");
      if (l->agent == Agent::Stream) {
        const StreamId st = stream_index(program, l->stream);
        const std::size_t n = sites[std::size_t(st)].size();
        if (std::size_t(l->index) >= n)
          fail(source, i, describe(*l) + " is never launched: the program launches " + std::to_string(n) +
                              " device ops on stream " + l->stream);
        (l == &d.hold ? f.hold_stream : f.until_stream) = st;
      }
    }
    if (d.hold.agent == Agent::Stream && d.until.agent == Agent::Stream) {
      if (f.hold_stream == f.until_stream && d.until.index >= d.hold.index)
        fail(source, i, what + ": not forceable on the GPU: the until op runs after the held one on the same stream");
      f.kind = ForcedDelay::Kind::StreamUntilStream;
    } else if (d.hold.agent == Agent::Stream) {
      f.kind = ForcedDelay::Kind::StreamUntilHost;
    } else if (d.until.agent == Agent::Stream) {
      // The until op is launched by some host op; the program's own order says which at the
      // earliest (a skipped op only moves later launches further on).
      const std::size_t site = sites[std::size_t(f.until_stream)][std::size_t(d.until.index)];
      if (site >= std::size_t(d.hold.index))
        fail(source, i, what + ": not forceable on the GPU: host op " + std::to_string(site) +
                            " launches the until op, so the host would wait for its own later step");
      f.kind = ForcedDelay::Kind::HostUntilStream;
    } else {
      if (d.until.index >= d.hold.index)
        fail(source, i, what + ": not forceable on the GPU: the host takes its ops in order, so the until op "
                               "needs the held one");
      f.kind = ForcedDelay::Kind::HostAfterEarlierHost;
    }
    out.push_back(std::move(f));
  }
  return out;
}

ScheduleForcing::ScheduleForcing(std::vector<ForcedDelay> delays, std::size_t streams)
    : delays_(std::move(delays)), launches_(streams, 0), trial_(delays_.size()) {}

void ScheduleForcing::begin_trial() {
  std::fill(launches_.begin(), launches_.end(), 0);
  trial_.assign(delays_.size(), DelayTrial{});
  // Host op N waits for host op M < N: done by the time the host gets there, in every trial.
  for (std::size_t i = 0; i < delays_.size(); ++i)
    if (delays_[i].kind == ForcedDelay::Kind::HostAfterEarlierHost) trial_[i].signalled = true;
}

ScheduleForcing::AtLaunch ScheduleForcing::on_launch(StreamId s) {
  AtLaunch a;
  if (s < 0 || std::size_t(s) >= launches_.size()) return a;  // a backend stream: no locator names it
  const std::int64_t j = launches_[std::size_t(s)]++;
  for (std::size_t i = 0; i < delays_.size(); ++i) {
    const ForcedDelay& f = delays_[i];
    const bool holds = f.hold_stream == s && f.delay.hold.index == j;
    const bool releases = f.until_stream == s && f.delay.until.index == j;
    if (holds && f.delay.hold.agent == StepLocator::Agent::Stream) {
      a.gates_before.push_back(int(i));
      trial_[i].held = true;
    }
    if (releases) {
      (f.kind == ForcedDelay::Kind::HostUntilStream ? a.events_after : a.signals_after).push_back(int(i));
      trial_[i].signalled = true;
    }
  }
  return a;
}

std::vector<int> ScheduleForcing::waits_before_host_op(std::size_t op) {
  std::vector<int> out;
  for (std::size_t i = 0; i < delays_.size(); ++i) {
    const ForcedDelay& f = delays_[i];
    if (f.delay.hold.agent != StepLocator::Agent::Host || std::size_t(f.delay.hold.index) != op) continue;
    trial_[i].held = true;
    if (f.kind == ForcedDelay::Kind::HostUntilStream) out.push_back(int(i));
  }
  return out;
}

std::vector<int> ScheduleForcing::signals_after_host_op(std::size_t op) {
  std::vector<int> out;
  for (std::size_t i = 0; i < delays_.size(); ++i) {
    const ForcedDelay& f = delays_[i];
    if (f.kind != ForcedDelay::Kind::StreamUntilHost || std::size_t(f.delay.until.index) != op) continue;
    trial_[i].signalled = true;
    out.push_back(int(i));
  }
  return out;
}

}  // namespace allocsim::hw
