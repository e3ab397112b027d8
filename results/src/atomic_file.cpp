// write_file_atomically: a uniquely named temp file in the target's directory, then rename (see header).
#include "allocsim/results/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace allocsim {

namespace {
std::string os_reason() { return std::strerror(errno); }
std::atomic<std::uint64_t> temp_counter{0};
}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  if (path.empty()) throw FileWriteError("cannot write file: empty path");
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  // A name unique per process and call (O_EXCL), so concurrent writers (sweep workers) never share
  // a temp file; mode 0666 lets the umask decide the final permissions, as for any new file.
  std::string tmpl;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    tmpl = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                   std::to_string(temp_counter.fetch_add(1)))).string();
    fd = ::open(tmpl.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw FileWriteError("cannot write '" + path + "': " + os_reason());
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = os_reason();
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw FileWriteError("cannot write '" + path + "': " + why);
    }
    p += n;
    left -= std::size_t(n);
  }
  // fsync before the rename makes the file durable before it becomes visible: a sweep's job
  // records must survive a crash to be resumable.
  const bool synced = ::fsync(fd) == 0;
  if (::close(fd) != 0 || !synced) {
    std::string why = os_reason();
    ::unlink(tmpl.c_str());
    throw FileWriteError("cannot write '" + path + "': " + why);
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    std::string why = os_reason();
    ::unlink(tmpl.c_str());
    throw FileWriteError("cannot write '" + path + "': " + why);
  }
}

std::string read_whole_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw FileWriteError("cannot read '" + path + "': is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileWriteError("cannot read '" + path + "': " + os_reason());
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw FileWriteError("cannot read '" + path + "': read error");
  return ss.str();
}

}  // namespace allocsim

namespace allocsim {

void check_output_path(const std::string& path, const char* flag) {
  if (path.empty()) return;
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.parent_path().empty() ? "." : p.parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw FileWriteError(std::string(flag) + " " + path + ": directory '" + dir.string() + "' does not exist");
  if (std::filesystem::is_directory(p, ec)) throw FileWriteError(std::string(flag) + " " + path + ": is a directory");
}

}  // namespace allocsim
