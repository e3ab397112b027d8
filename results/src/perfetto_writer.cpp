// PerfettoWriter (see header for the track layout). Events are kept as small JSON fragments and
// joined at the end; the time field is spliced in as fixed-point microseconds.
#include "allocsim/results/perfetto_writer.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cinttypes>
#include <cstdio>

#include "allocsim/results/atomic_file.h"

namespace allocsim {

namespace {

// ns -> "123.456" (µs, three decimals, exact).
std::string micros(TimeNs ns) {
  char buf[40];
  const char* sign = ns < 0 ? "-" : "";
  std::uint64_t a = ns < 0 ? std::uint64_t(-(ns + 1)) + 1 : std::uint64_t(ns);
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03" PRIu64, sign, a / 1000, a % 1000);
  return buf;
}

std::string q(std::string_view s) { return boost::json::serialize(boost::json::value(boost::json::string_view(s.data(), s.size()))); }

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

const char* op_name(DeviceOpKind k) {
  switch (k) {
    case DeviceOpKind::Kernel: return "kernel";
    case DeviceOpKind::Memset: return "memset";
    case DeviceOpKind::Copy: return "copy";
    case DeviceOpKind::Marker: break;
  }
  return "marker";
}

std::string head(const char* ph, std::string_view name, int tid, const char* cat) {
  return std::string("\"ph\":\"") + ph + "\",\"name\":" + q(name) + ",\"cat\":\"" + cat + "\",\"pid\":1,\"tid\":" +
         std::to_string(tid);
}

std::string metadata(const char* what, int tid, const std::string& args) {
  return std::string("{\"ph\":\"M\",\"name\":\"") + what + "\",\"pid\":1,\"tid\":" + std::to_string(tid) +
         ",\"args\":" + args + "}";
}

}  // namespace

PerfettoWriter::PerfettoWriter(const Program* program, std::string title)
    : program_(program), title_(std::move(title)) {}

int PerfettoWriter::tid_of(AgentId a) const {
  if (a == kHostAgent) return kHostTid;
  if (a == kCallbackAgent) return kCallbackTid;
  return stream_tid(StreamId(a - 2));
}

std::string PerfettoWriter::buffer_label(BufferId id) const {
  if (program_ && id >= 0 && std::size_t(id) < program_->buffer_names.size() &&
      !program_->buffer_names[std::size_t(id)].empty())
    return program_->buffer_names[std::size_t(id)];
  return "buffer " + std::to_string(id);
}

void PerfettoWriter::on_stream_created(StreamId s, std::string_view name) { streams_[s] = std::string(name); }

void PerfettoWriter::on_access(AgentId a, std::uint64_t op_seq, BufferId alloc, AddrRange range, bool write, TimeNs t) {
  (void)t;
  if (a == kHostAgent || a == kCallbackAgent) return;  // host-side accesses belong to no device op
  accesses_[op_seq].push_back({alloc, range, write});
}

void PerfettoWriter::on_device_op(const DeviceOpSpan& span) {
  if (!streams_.count(span.stream)) streams_[span.stream] = "stream " + std::to_string(span.stream);
  std::string args = std::string("{\"op\":\"") + op_name(span.kind) + "\",\"seq\":" + std::to_string(span.op_seq) +
                     ",\"buffers\":[";
  auto it = accesses_.find(span.op_seq);
  if (it != accesses_.end()) {
    bool first = true;
    for (const auto& acc : it->second) {
      args += (first ? "" : ",") + q(buffer_label(acc.alloc) + (acc.write ? " write " : " read ") +
                                     hex(acc.range.begin) + "+" + std::to_string(acc.range.bytes));
      first = false;
    }
    accesses_.erase(it);
  }
  args += "]}";
  std::string label = span.label.empty() ? std::string(op_name(span.kind)) : std::string(span.label);
  add(span.start, head("X", label, stream_tid(span.stream), "device") + ",\"dur\":" + micros(span.end - span.start) +
                      ",\"args\":" + args);
}

void PerfettoWriter::on_host_blocked(TimeNs from, TimeNs to, std::string_view why) {
  std::string name = "blocked: " + std::string(why);
  add(from, head("X", name, kHostTid, "host") + ",\"dur\":" + micros(to - from));
}

void PerfettoWriter::on_callback_run(TimeNs start, TimeNs end, std::string_view what) {
  add(start, head("X", what.empty() ? "callback" : what, kCallbackTid, "callback") + ",\"dur\":" + micros(end - start));
}

void PerfettoWriter::on_memory(TimeNs t, const MemoryCounters& m) {
  auto counter = [&](const char* name, std::uint64_t now, std::uint64_t before) {
    if (have_counters_ && now == before) return;
    add(t, std::string("\"ph\":\"C\",\"name\":\"") + name + "\",\"cat\":\"memory\",\"pid\":1,\"tid\":" +
               std::to_string(kHostTid) + ",\"args\":{\"bytes\":" + std::to_string(now) + "}");
  };
  counter("live", m.live, last_.live);
  counter("pending", m.pending, last_.pending);
  counter("in_use", m.in_use, last_.in_use);
  counter("pool", m.pool, last_.pool);
  last_ = m;
  have_counters_ = true;
}

void PerfettoWriter::on_host_release(const BufferInfo& buf, TimeNs t) {
  const std::string name = "release " + buffer_label(buf.id);
  add(t, head("i", name, kHostTid, "free") + ",\"s\":\"t\",\"args\":{\"buffer\":" + std::to_string(buf.id) +
             ",\"addr\":\"" + hex(buf.chunk.addr) + "\",\"bytes\":" + std::to_string(buf.chunk.bytes) + "}");
  const std::uint64_t id = next_flow_++;
  open_flows_[buf.id] = id;
  // Directly after the instant at the same time: Perfetto binds the flow start to that slice.
  add(t, head("s", "release -> pool", kHostTid, "free") + ",\"id\":" + std::to_string(id));
}

void PerfettoWriter::on_pool_free(AgentId a, const Chunk& c, BufferId buf, TimeNs t) {
  const int tid = tid_of(a);
  add(t, head("i", "pool free " + buffer_label(buf), tid, "free") + ",\"s\":\"t\",\"args\":{\"buffer\":" +
             std::to_string(buf) + ",\"pool\":" + std::to_string(c.pool) + ",\"addr\":\"" + hex(c.addr) +
             "\",\"bytes\":" + std::to_string(c.bytes) + "}");
  auto it = open_flows_.find(buf);
  if (it == open_flows_.end()) return;
  add(t, head("f", "release -> pool", tid, "free") + ",\"bp\":\"e\",\"id\":" + std::to_string(it->second));
  open_flows_.erase(it);
}

void PerfettoWriter::on_pool_destroyed(PoolId p, TimeNs t) {
  add(t, head("i", "pool " + std::to_string(p) + " destroyed", kHostTid, "free") + ",\"s\":\"p\"");
}

std::string PerfettoWriter::json() const {
  std::vector<std::string> meta;
  meta.push_back(metadata("process_name", 0, "{\"name\":" + q(title_) + "}"));
  meta.push_back(metadata("thread_name", kHostTid, "{\"name\":\"host\"}"));
  meta.push_back(metadata("thread_sort_index", kHostTid, "{\"sort_index\":0}"));
  meta.push_back(metadata("thread_name", kCallbackTid, "{\"name\":\"callback thread\"}"));
  meta.push_back(metadata("thread_sort_index", kCallbackTid, "{\"sort_index\":1}"));
  for (const auto& [s, name] : streams_) {
    meta.push_back(metadata("thread_name", stream_tid(s), "{\"name\":" + q("stream " + name) + "}"));
    meta.push_back(metadata("thread_sort_index", stream_tid(s), "{\"sort_index\":" + std::to_string(2 + s) + "}"));
  }
  std::vector<const Event*> order;
  order.reserve(events_.size());
  for (const auto& e : events_) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const Event* a, const Event* b) { return a->ts < b->ts; });

  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  for (const auto& m : meta) {
    out += (first ? "" : ",\n") + m;
    first = false;
  }
  for (const Event* e : order) {
    out += first ? "{" : ",\n{";
    first = false;
    out += e->text;
    out += ",\"ts\":";
    out += micros(e->ts);
    out += "}";
  }
  out += "\n]}\n";
  return out;
}

void PerfettoWriter::write(const std::string& path) const { write_file_atomically(path, json()); }

}  // namespace allocsim
