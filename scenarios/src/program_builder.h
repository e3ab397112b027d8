// ProgramBuilder: appends host ops to a flat Program while enforcing the program's own rules, so
// every front end (YAML, PyTorch traces) gets the same checks:
//  - a buffer name refers to its latest allocation; using it before allocation or after release
//    is an error; allocating a name that is still live is an error (release it first);
//  - each allocation gets a fresh BufferId ("X", then "X#1", "X#2", ... in buffer_names);
//  - each `record` gets a fresh program EventId; a wait/sync/query refers to the latest record,
//    and one before any record of that event is an error;
//  - accesses stay inside their buffer; the op count stays under LoadLimits::max_ops;
//  - host mutexes get ids on first mention; the host locks only a mutex it does not hold and
//    unlocks only one it holds (the program is straight-line once expanded, so the loader knows
//    exactly what the host holds at every op: a std::mutex locked twice by one thread, or
//    unlocked by one that does not hold it, is undefined behaviour, not a schedule to explore).
// Errors are thrown as BuildError (message only); the caller adds the file position.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "allocsim/core/program.h"

namespace allocsim::scenario_detail {

struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr std::uint64_t kMaxBufferBytes = std::uint64_t(1) << 48;

class ProgramBuilder {
 public:
  ProgramBuilder(std::vector<StreamSpec> streams, std::size_t max_ops);

  StreamId stream(const std::string& name) const;  // throws on unknown
  const Program& program() const { return program_; }
  Program take() { return std::move(program_); }
  std::size_t op_count() const { return program_.ops.size(); }
  std::size_t max_ops() const { return max_ops_; }

  /// Counts loop iterations as work too, so empty loop bodies cannot spin for ever.
  void charge_work(std::size_t units);
  std::size_t work() const { return work_; }

  BufferId alloc(const std::string& name, StreamId stream, std::uint64_t bytes, std::uint32_t line);
  /// A buffer that exists before the program starts (PyTorch trace frees of unseen addresses).
  BufferId preexisting(const std::string& name, std::uint64_t bytes);
  BufferId live_buffer(const std::string& name) const;  // throws if unallocated / released
  std::uint64_t buffer_bytes(BufferId id) const { return buffer_bytes_[static_cast<std::size_t>(id)]; }
  void release(const std::string& name, std::uint32_t line);
  BufferAccess access(const std::string& name, std::uint64_t offset, std::uint64_t bytes) const;

  void record(const std::string& event, StreamId stream, std::uint32_t line);
  EventId recorded_event(const std::string& event) const;  // throws if never recorded yet

  /// The id of host mutex `name`, made on first mention.
  MutexId mutex(const std::string& name);
  void lock(const std::string& name, std::uint32_t line);
  void unlock(const std::string& name, std::uint32_t line);
  /// The mutexes the host holds at this point of the program, by name.
  std::vector<std::string> held_mutexes() const;

  /// Appends an op (checks the op limit).
  void push(HostOp op);
  /// Appends a HostDelay of `ns` rounded to whole nanoseconds, or nothing when that rounds to 0:
  /// how trace and profile importers turn the gap between two recorded calls into host time.
  void host_gap(double ns);

 private:
  Program program_;
  std::size_t max_ops_;
  std::size_t work_ = 0;
  std::map<std::string, BufferId> latest_buffer_;
  std::map<std::string, int> alloc_count_;
  std::vector<std::uint64_t> buffer_bytes_;
  std::vector<bool> released_;
  std::map<std::string, EventId> latest_event_;
  std::map<std::string, int> record_count_;
  std::map<std::string, MutexId> mutex_ids_;
  std::vector<bool> host_holds_;  // by MutexId
};

}  // namespace allocsim::scenario_detail
