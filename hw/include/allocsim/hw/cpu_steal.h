// The time the hypervisor stole from this machine's CPUs (issue 17). On the H200 device machine, a
// KVM guest, the host's pace on a program moved from process to process and followed the steal
// while each ran (results/hw/h200-cpu-probe): load from outside the guest on the physical CPUs it
// shares. validate records it trial by trial beside each trial's host cadence, so every validation
// says what outside load its trials ran under.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace allocsim::hw {

/// Every CPU's time since boot and the part of it stolen, in USER_HZ ticks (usually 10 ms).
struct CpuTicks {
  std::uint64_t total = 0, steal = 0;
};

/// From the first line of `path` (Linux's /proc/stat: "cpu  user nice system idle iowait irq softirq
/// steal ..."), the sum of its numbers and the eighth. nullopt when the file cannot be read or the
/// line has no steal field (not Linux, or a kernel without it).
std::optional<CpuTicks> read_cpu_ticks(const std::string& path = "/proc/stat");

}  // namespace allocsim::hw
