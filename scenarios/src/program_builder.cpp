// ProgramBuilder implementation: name scoping and validity checks for host programs.
#include "program_builder.h"

#include <cmath>
#include <utility>

namespace allocsim::scenario_detail {

ProgramBuilder::ProgramBuilder(std::vector<StreamSpec> streams, std::size_t max_ops) : max_ops_(max_ops) {
  program_.streams = std::move(streams);
}

StreamId ProgramBuilder::stream(const std::string& name) const {
  for (std::size_t i = 0; i < program_.streams.size(); ++i)
    if (program_.streams[i].name == name) return static_cast<StreamId>(i);
  std::string known;
  for (const auto& s : program_.streams) known += (known.empty() ? "" : ", ") + s.name;
  throw BuildError("unknown stream '" + name + "' (declared streams: " + known + ")");
}

void ProgramBuilder::charge_work(std::size_t units) {
  work_ += units;
  if (work_ > max_ops_)
    throw BuildError("program expands to more than " + std::to_string(max_ops_) +
                     " ops and loop iterations (reduce repeat counts)");
}

BufferId ProgramBuilder::alloc(const std::string& name, StreamId stream, std::uint64_t bytes, std::uint32_t line) {
  if (name.empty()) throw BuildError("buffer name must not be empty");
  if (bytes == 0) throw BuildError("buffer '" + name + "' has size 0 (sizes must be at least 1 byte)");
  if (bytes > kMaxBufferBytes)
    throw BuildError("size overflow: buffer '" + name + "' asks for " + std::to_string(bytes) +
                     " bytes (more than 2^48)");
  auto it = latest_buffer_.find(name);
  if (it != latest_buffer_.end() && !released_[static_cast<std::size_t>(it->second)])
    throw BuildError("buffer '" + name + "' is allocated again while still live (release it first)");
  int n = alloc_count_[name]++;
  auto id = static_cast<BufferId>(program_.buffer_names.size());
  program_.buffer_names.push_back(n == 0 ? name : name + "#" + std::to_string(n));
  buffer_bytes_.push_back(bytes);
  released_.push_back(false);
  latest_buffer_[name] = id;
  HostOp op;
  op.kind = HostOpKind::Alloc;
  op.stream = stream;
  op.buffer = id;
  op.bytes = bytes;
  op.source_line = line;
  push(std::move(op));
  return id;
}

BufferId ProgramBuilder::preexisting(const std::string& name, std::uint64_t bytes) {
  if (bytes > kMaxBufferBytes) throw BuildError("size overflow: buffer '" + name + "' is larger than 2^48 bytes");
  auto id = static_cast<BufferId>(program_.buffer_names.size());
  int n = alloc_count_[name]++;
  program_.buffer_names.push_back(n == 0 ? name : name + "#" + std::to_string(n));
  buffer_bytes_.push_back(bytes);
  released_.push_back(false);
  latest_buffer_[name] = id;
  program_.preexisting.push_back(id);
  program_.preexisting_bytes.push_back(bytes);
  return id;
}

BufferId ProgramBuilder::live_buffer(const std::string& name) const {
  auto it = latest_buffer_.find(name);
  if (it == latest_buffer_.end()) throw BuildError("buffer '" + name + "' is used before it is allocated");
  if (released_[static_cast<std::size_t>(it->second)])
    throw BuildError("buffer '" + name + "' is used after it is released");
  return it->second;
}

void ProgramBuilder::release(const std::string& name, std::uint32_t line) {
  BufferId id = live_buffer(name);
  released_[static_cast<std::size_t>(id)] = true;
  HostOp op;
  op.kind = HostOpKind::Release;
  op.buffer = id;
  op.source_line = line;
  push(std::move(op));
}

BufferAccess ProgramBuilder::access(const std::string& name, std::uint64_t offset, std::uint64_t bytes) const {
  BufferId id = live_buffer(name);
  std::uint64_t size = buffer_bytes_[static_cast<std::size_t>(id)];
  if (offset >= size || (bytes != 0 && bytes > size - offset))
    throw BuildError("access to buffer '" + name + "' at offset " + std::to_string(offset) + " (+" +
                     std::to_string(bytes) + " bytes) is outside its " + std::to_string(size) + " bytes");
  return BufferAccess{id, offset, bytes};
}

void ProgramBuilder::record(const std::string& event, StreamId stream, std::uint32_t line) {
  if (event.empty()) throw BuildError("event name must not be empty");
  int n = record_count_[event]++;
  auto id = static_cast<EventId>(program_.event_names.size());
  program_.event_names.push_back(n == 0 ? event : event + "#" + std::to_string(n));
  latest_event_[event] = id;
  HostOp op;
  op.kind = HostOpKind::RecordEvent;
  op.stream = stream;
  op.event = id;
  op.source_line = line;
  push(std::move(op));
}

EventId ProgramBuilder::recorded_event(const std::string& event) const {
  auto it = latest_event_.find(event);
  if (it == latest_event_.end())
    throw BuildError("event '" + event + "' is never recorded before this point (add a `record` of it first)");
  return it->second;
}

MutexId ProgramBuilder::mutex(const std::string& name) {
  if (name.empty()) throw BuildError("mutex name must not be empty");
  auto [it, added] = mutex_ids_.try_emplace(name, static_cast<MutexId>(program_.mutex_names.size()));
  if (added) {
    program_.mutex_names.push_back(name);
    host_holds_.push_back(false);
  }
  return it->second;
}

void ProgramBuilder::lock(const std::string& name, std::uint32_t line) {
  const MutexId m = mutex(name);
  if (host_holds_[static_cast<std::size_t>(m)])
    throw BuildError("mutex '" + name + "' is locked again while the host already holds it (unlock it first)");
  host_holds_[static_cast<std::size_t>(m)] = true;
  HostOp op;
  op.kind = HostOpKind::Lock;
  op.mutexes = {m};
  op.source_line = line;
  push(std::move(op));
}

void ProgramBuilder::unlock(const std::string& name, std::uint32_t line) {
  auto it = mutex_ids_.find(name);
  if (it == mutex_ids_.end() || !host_holds_[static_cast<std::size_t>(it->second)])
    throw BuildError("mutex '" + name + "' is unlocked but the host does not hold it (lock it first)");
  host_holds_[static_cast<std::size_t>(it->second)] = false;
  HostOp op;
  op.kind = HostOpKind::Unlock;
  op.mutexes = {it->second};
  op.source_line = line;
  push(std::move(op));
}

std::vector<std::string> ProgramBuilder::held_mutexes() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < host_holds_.size(); ++i)
    if (host_holds_[i]) out.push_back(program_.mutex_names[i]);
  return out;
}

void ProgramBuilder::push(HostOp op) {
  charge_work(1);
  program_.ops.push_back(std::move(op));
}

void ProgramBuilder::host_gap(double ns) {
  const double rounded = std::round(ns);
  if (!(rounded >= 1)) return;
  HostOp d;
  d.kind = HostOpKind::HostDelay;
  d.duration = Duration::fixed(rounded);
  push(std::move(d));
}

}  // namespace allocsim::scenario_detail
