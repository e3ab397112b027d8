// See cpu_steal.h.
#include "allocsim/hw/cpu_steal.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace allocsim::hw {

std::optional<CpuTicks> read_cpu_ticks(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  std::istringstream fields(line);
  std::string name;
  if (!(fields >> name) || name != "cpu") return std::nullopt;
  std::vector<std::uint64_t> ticks;
  for (std::uint64_t v; fields >> v;) ticks.push_back(v);
  // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already
  // counted in user and nice, so the total stops at steal.
  constexpr std::size_t kSteal = 7;
  if (ticks.size() <= kSteal) return std::nullopt;
  CpuTicks t;
  for (std::size_t i = 0; i <= kSteal; ++i) t.total += ticks[i];
  t.steal = ticks[kSteal];
  return t;
}

}  // namespace allocsim::hw
