// PerfettoWriter: an Observer that records a run's timeline and writes it as Chrome trace JSON
// (the "JSON Object Format" with traceEvents), which the Perfetto UI and chrome://tracing open.
//
// Tracks (one process, pid 1): tid 1 = host thread, tid 2 = callback thread, tid 100+s = stream s
// (named from on_stream_created), each announced with thread_name / thread_sort_index metadata.
//   - device ops      -> complete slices ("X") on their stream, args {op, buffers[]}
//   - host blocked    -> "X" on the host track, named by the reason
//   - callbacks       -> "X" on the callback-thread track
//   - memory counters -> "C" events named live / pending / in_use / pool (args {bytes}); emitted
//                        when a value changes
//   - host release    -> instant ("i", thread scope) on the host track, then a flow start ("s")
//   - pool free       -> instant on the freeing agent's track, then the flow end ("f", bp "e")
//                        when that buffer was released by the host (same id: release -> return)
// Time: ts/dur in microseconds with exactly three decimals (integer ns, so no rounding noise).
// Events are written sorted by time (stable), metadata first: the output is deterministic.
// The file is written whole at the end (write()), never partially.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "allocsim/core/observer.h"
#include "allocsim/core/program.h"

namespace allocsim {

class PerfettoWriter : public Observer {
 public:
  /// `program` (optional, must outlive the writer) supplies buffer names; `title` names the process.
  explicit PerfettoWriter(const Program* program = nullptr, std::string title = "allocsim");

  void on_stream_created(StreamId s, std::string_view name) override;
  void on_access(AgentId a, std::uint64_t op_seq, BufferId alloc, AddrRange range, bool write, TimeNs t) override;
  void on_host_release(const BufferInfo& buf, TimeNs t) override;
  void on_pool_free(AgentId a, const Chunk& c, BufferId buf, TimeNs t) override;
  void on_pool_destroyed(PoolId p, TimeNs t) override;
  void on_device_op(const DeviceOpSpan& span) override;
  void on_host_blocked(TimeNs from, TimeNs to, std::string_view why) override;
  void on_callback_run(TimeNs start, TimeNs end, std::string_view what) override;
  void on_memory(TimeNs t, const MemoryCounters& m) override;

  /// The whole trace as JSON text.
  std::string json() const;
  /// Write json() to `path` atomically (throws FileWriteError).
  void write(const std::string& path) const;

  static constexpr int kHostTid = 1;
  static constexpr int kCallbackTid = 2;
  static constexpr int stream_tid(StreamId s) { return 100 + s; }

 private:
  struct Event {
    TimeNs ts = 0;
    std::string text;  // the serialised event object without "ts" (inserted at write time)
  };
  struct Access {
    BufferId alloc;
    AddrRange range;
    bool write;
  };
  int tid_of(AgentId a) const;
  std::string buffer_label(BufferId id) const;
  void add(TimeNs ts, std::string text) { events_.push_back({ts, std::move(text)}); }

  const Program* program_;
  std::string title_;
  std::map<StreamId, std::string> streams_;
  std::map<std::uint64_t, std::vector<Access>> accesses_;  // op_seq -> accesses, until its span arrives
  std::map<BufferId, std::uint64_t> open_flows_;           // released, not yet back in the pool
  std::uint64_t next_flow_ = 1;
  MemoryCounters last_{};
  bool have_counters_ = false;
  std::vector<Event> events_;
};

}  // namespace allocsim
