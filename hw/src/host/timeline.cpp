// Device-op timelines, hardware and simulator (timeline.h).
#include "allocsim/hw/timeline.h"

#include <algorithm>
#include <boost/json.hpp>
#include <limits>

#include "allocsim/results/atomic_file.h"

namespace allocsim::hw {
namespace {

/// Relative to the earliest start, sorted by start then seq.
void normalise(std::vector<TimelineOp>& ops) {
  if (ops.empty()) return;
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  for (const TimelineOp& o : ops) first = std::min(first, o.start_ns);
  for (TimelineOp& o : ops) {
    o.start_ns -= first;
    o.end_ns -= first;
    o.reads_done_ns -= o.has_phases ? first : 0;
    o.writes_start_ns -= o.has_phases ? first : 0;
  }
  std::sort(ops.begin(), ops.end(), [](const TimelineOp& a, const TimelineOp& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.seq < b.seq;
  });
}

boost::json::array ops_json(const std::vector<TimelineOp>& ops) {
  boost::json::array a;
  a.reserve(ops.size());
  for (const TimelineOp& o : ops) {
    boost::json::object j;
    j["seq"] = o.seq;
    j["stream"] = o.stream;
    j["label"] = o.label;
    j["kind"] = o.kind;
    j["start_ns"] = o.start_ns;
    j["end_ns"] = o.end_ns;
    j["enqueued_ns"] = o.enqueued_ns;
    if (o.has_phases) {
      j["reads_done_ns"] = o.reads_done_ns;
      j["writes_start_ns"] = o.writes_start_ns;
      j["read_bytes"] = o.read_bytes;
      j["write_bytes"] = o.write_bytes;
    }
    a.push_back(std::move(j));
  }
  return a;
}

boost::json::array callbacks_json(const std::vector<TimelineCallback>& callbacks) {
  boost::json::array a;
  for (const TimelineCallback& b : callbacks)
    a.push_back({{"what", b.what}, {"stream", b.stream}, {"enqueued_ns", b.enqueued_ns},
                 {"handed_over_ns", b.handed_over_ns}, {"taken_up_ns", b.taken_up_ns}, {"locked_ns", b.locked_ns},
                 {"done_ns", b.done_ns}});
  return a;
}

boost::json::array semaphore_waits_json(const std::vector<TimelineSemaphoreWait>& waits) {
  boost::json::array a;
  for (const TimelineSemaphoreWait& w : waits) a.push_back({{"since_ns", w.since_ns}, {"acquired_ns", w.acquired_ns}});
  return a;
}

}  // namespace

std::string_view device_op_kind_name(DeviceOpKind k) {
  switch (k) {
    case DeviceOpKind::Kernel: return "kernel";
    case DeviceOpKind::Memset: return "memset";
    case DeviceOpKind::Copy: return "copy";
    case DeviceOpKind::Marker: return "marker";
  }
  return "?";
}

std::vector<TimelineOp> device_timeline(const std::vector<unsigned long long>& stamps,
                                        const std::vector<LaunchedOp>& ops, double ns_per_tick,
                                        std::uint64_t& dropped) {
  std::vector<TimelineOp> out;
  dropped = 0;
  // Ticks relative to the earliest start before scaling, so doubles keep ns precision.
  unsigned long long first = std::numeric_limits<unsigned long long>::max();
  constexpr std::size_t k = kTimelineStampsPerOp;
  const auto stamp = [&](std::size_t op, std::size_t which) {
    return k * op + which < stamps.size() ? stamps[k * op + which] : 0ull;
  };
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (stamp(i, 0) != 0 && stamp(i, 1) != 0) first = std::min(first, ~stamp(i, 0));
  const auto ns = [&](unsigned long long ticks) {
    return ticks >= first ? std::int64_t(double(ticks - first) * ns_per_tick)
                          : -std::int64_t(double(first - ticks) * ns_per_tick);
  };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const unsigned long long start = stamp(i, 0), end = stamp(i, 1);
    if (start == 0 || end == 0) {
      ++dropped;
      continue;
    }
    TimelineOp o;
    o.seq = i;
    o.stream = ops[i].stream;
    o.label = std::string(ops[i].label);
    o.kind = std::string(device_op_kind_name(ops[i].kind));
    o.start_ns = ns(~start);
    o.end_ns = ns(end);
    o.enqueued_ns = ops[i].enqueued_ns;
    if (stamp(i, 2) != 0 && stamp(i, 3) != 0) {
      o.has_phases = true;
      o.read_bytes = ops[i].read_bytes;
      o.write_bytes = ops[i].write_bytes;
      o.reads_done_ns = ns(stamp(i, 2));
      o.writes_start_ns = ns(~stamp(i, 3));
    }
    out.push_back(std::move(o));
  }
  normalise(out);
  return out;
}

void SimTimelineObserver::on_stream_created(StreamId s, std::string_view name) {
  if (s < 0) return;
  if (std::size_t(s) >= stream_names_.size()) stream_names_.resize(std::size_t(s) + 1);
  stream_names_[std::size_t(s)] = std::string(name);
}

void SimTimelineObserver::on_device_op(const DeviceOpSpan& span) {
  TimelineOp o;
  o.seq = span.op_seq;
  o.stream = span.stream >= 0 && std::size_t(span.stream) < stream_names_.size() ? stream_names_[std::size_t(span.stream)]
                                                                                   : std::to_string(span.stream);
  o.label = std::string(span.label);
  o.kind = std::string(device_op_kind_name(span.kind));
  o.start_ns = span.start;
  o.end_ns = span.end;
  o.enqueued_ns = span.enqueued;
  ops_.push_back(std::move(o));
}

std::vector<TimelineOp> SimTimelineObserver::ops() const {
  std::vector<TimelineOp> out = ops_;
  normalise(out);
  return out;
}

std::string timeline_json(const TimelineFile& file) {
  boost::json::array combos;
  for (const TimelineCombination& c : file.combinations) {
    boost::json::object o;
    o["policy"] = c.policy;
    o["guard"] = c.guard;
    o["trial"] = c.trial;
    o["corrupted_words"] = c.corrupted_words;
    boost::json::array ex;
    for (int e : c.corrupted_executions) ex.push_back(e);
    o["corrupted_executions"] = std::move(ex);
    o["dropped"] = c.dropped;
    o["ops"] = ops_json(c.ops);
    o["sim_ops"] = ops_json(c.sim_ops);
    o["host_callbacks"] = callbacks_json(c.callbacks);
    o["semaphore_waits"] = semaphore_waits_json(c.semaphore_waits);
    combos.push_back(std::move(o));
  }
  boost::json::object root;
  root["scenario"] = file.scenario;
  root["semaphore"] = file.semaphore;
  root["seed"] = file.seed;
  root["clock"] = "ops: GPU %globaltimer (block 0 thread 0, op start / after its writes); sim_ops: simulated time; "
                  "ns from each list's first op start; host_callbacks, semaphore_waits and enqueued_ns: the host's "
                  "steady clock, ns from the trial's start";
  root["combinations"] = std::move(combos);
  return boost::json::serialize(root) + "\n";
}

void write_timeline_file(const std::string& path, const TimelineFile& file) {
  write_file_atomically(path, timeline_json(file));
}

std::string callback_log_lines(const CallbackLog& log) {
  boost::json::object head;
  head["scenario"] = log.scenario;
  head["semaphore"] = log.semaphore;
  head["clock"] = "the host's steady clock, ns from each trial's start";
  std::string out = boost::json::serialize(head) + "\n";
  for (const CallbackLogTrial& t : log.trials) {
    boost::json::object o;
    o["policy"] = t.policy;
    o["guard"] = t.guard;
    o["trial"] = t.trial;
    o["peak_bytes_in_use"] = t.peak_bytes_in_use;
    o["peak_in_use_at_ns"] = t.peak_in_use_at_ns;
    o["host_callbacks"] = callbacks_json(t.callbacks);
    o["semaphore_waits"] = semaphore_waits_json(t.semaphore_waits);
    boost::json::array memory;
    for (const TimelineMemoryEvent& m : t.memory) {
      const bool named = m.buffer >= 0 && std::size_t(m.buffer) < log.buffer_names.size();
      memory.push_back({{"at_ns", m.at_ns},
                        {"buffer", named ? log.buffer_names[std::size_t(m.buffer)] : std::to_string(m.buffer)},
                        {"allocated", m.allocated},
                        {"bytes", m.bytes}});
    }
    o["memory"] = std::move(memory);
    out += boost::json::serialize(o) + "\n";
  }
  return out;
}

void write_callback_log(const std::string& path, const CallbackLog& log) {
  write_file_atomically(path, callback_log_lines(log));
}

}  // namespace allocsim::hw
