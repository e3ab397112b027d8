// Whole-or-nothing file writes for sweep records and reports (see sweep_files.h).
#include "sweep_files.h"

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace allocsim::results::detail {

void write_whole_file(const std::filesystem::path& path, const std::string& text) {
  static std::atomic<unsigned> counter{0};
  auto tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write " + path.string());
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = (std::fflush(f) == 0) && ok;
    ok = (::fsync(::fileno(f)) == 0) && ok;  // durable before it becomes visible
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) {
      std::filesystem::remove(tmp);
      throw std::runtime_error("cannot write " + path.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
  }
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
