// Which execution (compute-semaphore step) each allocation of a host program belongs to.
//
// Why: a validate trial runs the whole host program, which may hold many executions (seed-repro:
// 20, one per reproducer trial; conv-autotune: 16 training steps). "Some corruption somewhere in
// the trial" saturates at 100% as soon as the per-execution rate is a few percent, so the
// hardware and the simulator are compared per EXECUTION: the fraction of executions in which a
// read saw another allocation's data (hw) / had a manifest corruption (sim). Both sides use the
// same program and the same BufferIds, so the same mapping attributes a corrupted read to the
// execution of the allocation that read it.
#pragma once
#include <cstddef>
#include <set>
#include <vector>

#include "allocsim/core/program.h"
#include "allocsim/core/result.h"

namespace allocsim {

struct ExecutionUnits {
  /// unit[b] for BufferId b: the index of the last BeginExecution before b's Alloc; allocations
  /// before the first execution count to execution 0. Buffers never allocated: 0.
  std::vector<int> unit_of_buffer;
  int units = 1;  // max(1, number of BeginExecution ops)
};

ExecutionUnits execution_units(const Program& program);

/// Units (executions) with >= 1 corrupted word, from per-buffer foreign-word counts.
std::set<int> corrupted_units(const ExecutionUnits& u, const std::vector<std::uint64_t>& foreign_by_buffer);

/// Units with >= 1 manifest finding of a simulated run, attributed to the victim (the reading
/// side of the finding). `findings` must hold every manifest finding (raise max_findings).
std::set<int> manifest_units(const ExecutionUnits& u, const std::vector<Finding>& findings);

}  // namespace allocsim
