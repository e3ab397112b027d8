// execution_units: attribute allocations (and so corrupted reads) to executions. See the header.
#include "allocsim/engine/execution_units.h"

namespace allocsim {
namespace {

int unit_of(const ExecutionUnits& u, BufferId b) {
  return b >= 0 && std::size_t(b) < u.unit_of_buffer.size() ? u.unit_of_buffer[std::size_t(b)] : 0;
}

}  // namespace

ExecutionUnits execution_units(const Program& program) {
  ExecutionUnits u;
  u.unit_of_buffer.assign(program.buffer_names.size(), 0);
  int begun = 0;
  for (const HostOp& op : program.ops) {
    if (op.kind == HostOpKind::BeginExecution) ++begun;
    if (op.kind == HostOpKind::Alloc && op.buffer >= 0 && std::size_t(op.buffer) < u.unit_of_buffer.size())
      u.unit_of_buffer[std::size_t(op.buffer)] = begun > 0 ? begun - 1 : 0;
  }
  u.units = begun > 0 ? begun : 1;
  return u;
}

std::set<int> corrupted_units(const ExecutionUnits& u, const std::vector<std::uint64_t>& foreign_by_buffer) {
  std::set<int> out;
  for (std::size_t b = 0; b < foreign_by_buffer.size(); ++b)
    if (foreign_by_buffer[b] > 0) out.insert(unit_of(u, BufferId(b)));
  return out;
}

std::set<int> manifest_units(const ExecutionUnits& u, const std::vector<Finding>& findings) {
  std::set<int> out;
  for (const Finding& f : findings) {
    if (f.kind != FindingKind::Manifest) continue;
    // The victim is the allocation whose READ saw the other's write.
    const FindingSide& victim = !f.first.write ? f.first : (!f.second.write ? f.second : f.first);
    out.insert(unit_of(u, victim.alloc));
  }
  return out;
}

}  // namespace allocsim
