// EventLog: one deterministic line per observer call (see engine/event_log.h).
#include "event_log.h"

#include <ios>

namespace allocsim {
namespace {

const char* sync_kind(std::uint64_t key) {
  switch (SyncKind(key >> 56)) {
    case SyncKind::EnqueuedOp: return "op";
    case SyncKind::Event: return "event";
    case SyncKind::StreamDrain: return "drain";
    case SyncKind::CallbackHandoff: return "handoff";
    case SyncKind::Semaphore: return "semaphore";
    case SyncKind::AllIdle: return "all-idle";
    case SyncKind::CallbackDone: return "callback-done";
    case SyncKind::Mutex: return "mutex";
  }
  return "?";
}

std::uint64_t sync_id(std::uint64_t key) { return key & ((std::uint64_t(1) << 56) - 1); }

}  // namespace

std::ostream& EventLog::line() {
  ++lines_;
  return out_;
}

void EventLog::on_stream_created(StreamId s, std::string_view name) {
  line() << "- stream " << s << " " << name << "\n";
}
void EventLog::on_release_sync(AgentId a, std::uint64_t key) {
  line() << "- release agent=" << a << " " << sync_kind(key) << ":" << sync_id(key) << "\n";
}
void EventLog::on_acquire_sync(AgentId a, std::uint64_t key) {
  line() << "- acquire agent=" << a << " " << sync_kind(key) << ":" << sync_id(key) << "\n";
}
void EventLog::on_access(AgentId a, std::uint64_t op_seq, BufferId alloc, AddrRange range, bool write, TimeNs t) {
  line() << t << (write ? " write" : " read") << " agent=" << a << " op=" << op_seq << " buf=" << alloc << " addr=0x"
         << std::hex << range.begin << std::dec << " bytes=" << range.bytes << "\n";
}
void EventLog::on_alloc(AgentId a, const BufferInfo& buf, TimeNs t) {
  line() << t << " alloc agent=" << a << " buf=" << buf.id << " pool=" << buf.chunk.pool << " addr=0x" << std::hex
         << buf.chunk.addr << std::dec << " chunk=" << buf.chunk.bytes << " requested=" << buf.requested_bytes
         << " stream=" << buf.alloc_stream << "\n";
}
void EventLog::on_host_release(const BufferInfo& buf, TimeNs t) {
  line() << t << " release buf=" << buf.id << " last_use_stream=" << buf.last_use_stream << "\n";
}
void EventLog::on_pool_free(AgentId a, const Chunk& c, BufferId buf, TimeNs t) {
  line() << t << " pool-free agent=" << a << " buf=" << buf << " pool=" << c.pool << " addr=0x" << std::hex << c.addr
         << std::dec << " bytes=" << c.bytes << "\n";
}
void EventLog::on_pool_destroyed(PoolId p, TimeNs t) { line() << t << " pool-destroyed pool=" << p << "\n"; }
void EventLog::on_device_op(const DeviceOpSpan& s) {
  line() << s.start << " op seq=" << s.op_seq << " stream=" << s.stream << " " << s.label << " end=" << s.end << "\n";
}
void EventLog::on_host_blocked(TimeNs from, TimeNs to, std::string_view why) {
  line() << from << " host-blocked " << why << " until=" << to << "\n";
}
void EventLog::on_callback_run(TimeNs start, TimeNs end, std::string_view what) {
  line() << start << " callback " << what << " end=" << end << "\n";
}
void EventLog::on_memory(TimeNs t, const MemoryCounters& m) {
  line() << t << " memory live=" << m.live << " pending=" << m.pending << " in_use=" << m.in_use << " pool=" << m.pool
         << "\n";
}
void EventLog::on_end(TimeNs t) { line() << t << " end\n"; }

}  // namespace allocsim
