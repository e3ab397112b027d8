// A fixed piece of CPU work, timed (issue 17): validate runs it on the trials' thread after every
// counted trial, so a trial's host pace can be set against the speed of the CPU itself at that
// moment. On the H200 device machine the pace switched between two levels in blocks of tens of
// trials with the thread pinned to one CPU and no steal (results/hw/h200-host-cpu): if the probe
// switches with it, the CPU ran slower; if not, the time went into the launch path (driver, PCIe).
#pragma once
#include <cstdint>

namespace allocsim::hw {

/// The CPU work's iterations (a dependent multiply-add chain: no memory, no vectorisation):
/// about 0.3 ms at 3 GHz (a 64-bit multiply and an add, about four cycles a step).
inline constexpr std::uint64_t kCpuProbeIterations = 200'000;

/// The time in ns `iterations` steps of the chain take on the calling thread.
std::int64_t time_cpu_probe(std::uint64_t iterations = kCpuProbeIterations);

}  // namespace allocsim::hw
