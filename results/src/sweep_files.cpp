// Whole-or-nothing file writes for sweep records and reports (see sweep_files.h).
#include "sweep_files.h"

#include "allocsim/results/atomic_file.h"

#include <fstream>
#include <sstream>

namespace allocsim::results::detail {

void write_whole_file(const std::filesystem::path& path, const std::string& text) {
  write_file_atomically(path.string(), text);  // the project's one atomic writer (atomic_file.h)
}

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return os.str();
}

}  // namespace allocsim::results::detail
