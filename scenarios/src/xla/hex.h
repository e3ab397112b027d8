// "0x7f3a00000000": how the XLA reports print an address (one format for every message).
#pragma once
#include <charconv>
#include <cstdint>
#include <string>

namespace allocsim::xla {

inline std::string hex(std::uint64_t v) {
  char buf[2 + 16];
  buf[0] = '0';
  buf[1] = 'x';
  auto [end, ec] = std::to_chars(buf + 2, buf + sizeof buf, v, 16);
  return std::string(buf, end);
}

}  // namespace allocsim::xla
