// Finding and reading a profile's XSpace bytes: a file (plain or gzip) or a profile directory.
#include <algorithm>
#include <filesystem>
#include <vector>

#include "../file_text.h"
#include "allocsim/scenarios/scenario_error.h"
#include "allocsim/scenarios/xla_profile.h"

namespace allocsim::xla {
namespace {

namespace fs = std::filesystem;

// Decompressed profiles of compile-heavy programs reach tens of MB; a cap far above that keeps a
// gzip bomb from exhausting memory. protobuf itself refuses messages of 2 GiB or more.
constexpr std::size_t kMaxProfileBytes = std::size_t{1} << 30;

bool is_profile_file(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.ends_with(".xplane.pb") || name.ends_with(".xplane.pb.gz");
}

void collect(const fs::path& dir, std::vector<fs::path>& found) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && is_profile_file(e.path())) found.push_back(e.path());
}

// jax.profiler writes DIR/plugins/profile/<timestamp>/<host>.xplane.pb; a run directory itself
// (the <timestamp> folder) is accepted too. One file must be found, so the choice is never a guess.
std::string find_in_directory(const std::string& dir) {
  std::vector<fs::path> found;
  collect(dir, found);
  const fs::path runs = fs::path(dir) / "plugins" / "profile";
  std::error_code ec;
  for (const fs::directory_entry& run : fs::directory_iterator(runs, ec))
    if (run.is_directory(ec)) collect(run.path(), found);
  if (found.empty())
    throw ProfileError(dir, "no *.xplane.pb or *.xplane.pb.gz in it or under plugins/profile/<run>/");
  if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    std::string list;
    for (const fs::path& p : found) list += "\n  " + p.string();
    throw ProfileError(dir, "several profiles found; name one:" + list);
  }
  return found.front().string();
}

}  // namespace

std::string find_profile_file(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) ? find_in_directory(path) : path;
}

std::string read_profile_bytes(const std::string& file) {
  try {
    return scenario_detail::read_input_file(file, kMaxProfileBytes);
  } catch (const ScenarioError& e) {  // the shared file reader speaks FILE:LINE:COL; a profile has no lines
    throw ProfileError(file, e.detail());
  }
}

Profile read_profile(const std::string& path, std::string_view allocator) {
  const std::string file = find_profile_file(path);
  return parse_profile(read_profile_bytes(file), file, allocator);
}

}  // namespace allocsim::xla
