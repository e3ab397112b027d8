// Test helper shared by the sweep tests: a file's whole content ("" when it cannot be read, so a
// comparison with an expected file fails instead of throwing).
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace allocsim::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace allocsim::test
