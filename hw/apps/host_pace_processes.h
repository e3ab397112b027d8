// The host-pace workload in several processes. The host's pace is a property of the process as
// much as of the machine: on the H200 one process in eight ran the validated programs about 1.4
// times slower than the others, and a calibration taken in one process drew its pace around that
// process's alone (results/hw/h200-processes/README.md). Calibrate therefore runs the workload in
// fresh processes of this binary as well as its own and pools their trials, so the pace it records
// is over a population of processes, as a validation pooled over processes measures.
#pragma once
#include <string>
#include <vector>

#include "allocsim/core/platform.h"

namespace allocsim::hw {

/// Each process's host busy times on the host-pace workload (calibrate_host_calls.h's
/// pace_workload_busy): this one's first, then `processes - 1` children of this executable
/// (/proc/self/exe pace-workload), started one after another so none shares the GPU with another's
/// trials. Throws HwError when a child fails, naming its exit status.
std::vector<std::vector<double>> pace_workload_in_processes(const PlatformProfile& profile, int processes);

/// The child's side (`allocsim-hw pace-workload --platform FILE --out FILE`): the workload's host
/// busy times here, one per line, in ns, written to `out_file`. Returns the exit status.
int cmd_pace_workload(const std::string& platform_file, const std::string& out_file);

}  // namespace allocsim::hw
