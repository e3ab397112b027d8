// See host_pace_processes.h.
#include "host_pace_processes.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "allocsim/hw/hw_device.h"
#include "allocsim/results/platform_io.h"
#include "calibrate_host_calls.h"

extern char** environ;

namespace allocsim::hw {
namespace {

namespace fs = std::filesystem;

/// Runs `argv` (argv[0] the program) and waits for it; its exit status, or 128 + the signal.
int run_and_wait(std::vector<std::string> argv) {
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  if (const int err = posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ))
    throw HwError("calibrate: could not start " + argv[0] + ": " + std::strerror(err));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw HwError(std::string("calibrate: waitpid: ") + std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// A fresh folder under the system's temporary one (mkdtemp), removed when this goes.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "allocsim-pace-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw HwError(std::string("calibrate: mkdtemp: ") + std::strerror(errno));
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

std::vector<std::vector<double>> pace_workload_in_processes(const PlatformProfile& profile, int processes) {
  std::vector<std::vector<double>> by_process{pace_workload_busy(profile)};
  if (processes <= 1) return by_process;
  // The child reads the profile from a platform file, which refuses a field still unmeasured.
  if (const PlatformField* f = first_unmeasured_field(profile))
    throw HwError(std::string("calibrate: the host-pace workload runs before ") + f->name + " is measured");
  const TempDir dir;
  const std::string platform = (dir.path / "profile.json").string();
  save_platform_file(platform, profile, PlatformSpread{});
  for (int i = 1; i < processes; ++i) {
    const std::string out = (dir.path / ("busy-" + std::to_string(i) + ".txt")).string();
    const int rc = run_and_wait({"/proc/self/exe", "pace-workload", "--platform", platform, "--out", out});
    if (rc != 0) throw HwError("calibrate: the host-pace workload's process " + std::to_string(i + 1) + " of " +
                               std::to_string(processes) + " exited with status " + std::to_string(rc));
    std::ifstream in(out);
    std::vector<double> busy;
    for (double b; in >> b;) busy.push_back(b);
    if (busy.empty()) throw HwError("calibrate: the host-pace workload's process " + std::to_string(i + 1) + " wrote no trials");
    by_process.push_back(std::move(busy));
  }
  return by_process;
}

int cmd_pace_workload(const std::string& platform_file, const std::string& out_file) {
  const std::vector<double> busy = pace_workload_busy(load_platform_file(platform_file));
  std::ofstream out(out_file);
  out.precision(17);
  for (double b : busy) out << b << "\n";
  out.close();
  return out ? 0 : 1;
}

}  // namespace allocsim::hw
