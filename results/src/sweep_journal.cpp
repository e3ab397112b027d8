// See sweep_journal.h.
#include "sweep_journal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include "allocsim/results/atomic_file.h"

namespace allocsim::results::detail {
namespace fs = std::filesystem;

RecordJournal::RecordJournal(const fs::path& dir, const std::string& name) : path_(dir / "jobs" / (name + ".jsonl")) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd_ < 0) throw FileWriteError("cannot write '" + path_.string() + "': " + std::strerror(errno));
}

RecordJournal::~RecordJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordJournal::append(const std::string& line) {
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileWriteError("cannot write '" + path_.string() + "': " + std::strerror(errno));
    p += n;
    left -= std::size_t(n);
  }
}

std::string journal_name(int shard_index, int shard_count) {
  const std::string pid = std::to_string(::getpid());
  return shard_count > 1 ? "shard-" + std::to_string(shard_index) + "-of-" + std::to_string(shard_count) + "-" + pid
                         : "run-" + pid;
}

std::map<std::size_t, std::vector<std::string>> read_journals(const fs::path& dir) {
  std::vector<fs::path> journals;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / "jobs", ec))
    if (e.path().extension() == ".jsonl") journals.push_back(e.path());
  std::sort(journals.begin(), journals.end());  // a fixed order: the first valid record of a job wins
  std::map<std::size_t, std::vector<std::string>> out;
  static const std::string kHead = "{\"index\":";
  for (const fs::path& j : journals) {
    std::ifstream in(j, std::ios::binary);
    for (std::string line; std::getline(in, line);) {
      if (in.eof() || line.compare(0, kHead.size(), kHead) != 0) continue;  // torn last line, or not a record
      const std::size_t at = kHead.size(), end = line.find_first_not_of("0123456789", at);
      if (end == at || end == std::string::npos || end - at > 18) continue;
      out[std::stoull(line.substr(at, end - at))].push_back(std::move(line));
    }
  }
  return out;
}

}  // namespace allocsim::results::detail
