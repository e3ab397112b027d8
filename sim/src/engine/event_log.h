// EventLog: an Observer that writes one text line per observer call, in call order. Same run ->
// byte-identical log, so determinism tests compare logs, and a diff of two logs shows where two
// runs part ways. Format: "<time|-> <what> key=value ...", times in ns, addresses in hex.
#pragma once
#include <ostream>

#include "allocsim/core/observer.h"

namespace allocsim {

class EventLog final : public Observer {
 public:
  explicit EventLog(std::ostream& out) : out_(out) {}
  std::uint64_t lines() const { return lines_; }

  void on_stream_created(StreamId s, std::string_view name) override;
  void on_release_sync(AgentId a, std::uint64_t key) override;
  void on_acquire_sync(AgentId a, std::uint64_t key) override;
  void on_access(AgentId a, std::uint64_t op_seq, BufferId alloc, AddrRange range, bool write, TimeNs t) override;
  void on_alloc(AgentId a, const BufferInfo& buf, TimeNs t) override;
  void on_host_release(const BufferInfo& buf, TimeNs t) override;
  void on_pool_free(AgentId a, const Chunk& c, BufferId buf, TimeNs t) override;
  void on_pool_destroyed(PoolId p, TimeNs t) override;
  void on_device_op(const DeviceOpSpan& span) override;
  void on_host_blocked(TimeNs from, TimeNs to, std::string_view why) override;
  void on_callback_run(TimeNs start, TimeNs end, std::string_view what) override;
  void on_memory(TimeNs t, const MemoryCounters& m) override;
  void on_end(TimeNs t) override;

 private:
  std::ostream& line();
  std::ostream& out_;
  std::uint64_t lines_ = 0;
};

}  // namespace allocsim
