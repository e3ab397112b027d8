// See cpu_probe.h.
#include "allocsim/hw/cpu_probe.h"

#include <chrono>

namespace allocsim::hw {

std::int64_t time_cpu_probe(std::uint64_t iterations) {
  const auto start = std::chrono::steady_clock::now();
  // Each step depends on the last, so the chain runs at the core's speed, one step per few cycles.
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  // The empty asm makes the compiler treat x as read and written each step: it cannot fold the
  // chain into a closed form or drop it (GCC and Clang syntax; the hw backend builds with either).
  for (std::uint64_t i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace allocsim::hw
