// write_file_atomically: whole file or nothing, no temp files left behind.
#include <catch2/catch.hpp>
#include <filesystem>

#include "allocsim/results/atomic_file.h"

using namespace allocsim;
namespace fs = std::filesystem;

namespace {
fs::path fresh_dir(const char* name) {
  fs::path d = fs::temp_directory_path() / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::size_t entries(const fs::path& d) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  return n;
}
}  // namespace

TEST_CASE("atomic write creates and replaces whole files", "[atomic]") {
  const fs::path d = fresh_dir("allocsim_atomic_a");
  const std::string path = (d / "out.json").string();
  write_file_atomically(path, "first");
  CHECK(read_whole_file(path) == "first");
  const std::string big(1 << 20, 'x');
  write_file_atomically(path, big);
  CHECK(read_whole_file(path) == big);
  CHECK(entries(d) == 1);  // no temp file left
  fs::remove_all(d);
}

TEST_CASE("atomic write failure leaves the old file and no temp file", "[atomic]") {
  const fs::path d = fresh_dir("allocsim_atomic_b");
  CHECK_THROWS_WITH(write_file_atomically((d / "missing" / "out.json").string(), "x"),
                    Catch::Contains("missing/out.json"));
  // Target is a directory: rename fails after the temp file was written; it must be cleaned up.
  fs::create_directories(d / "target");
  CHECK_THROWS_AS(write_file_atomically((d / "target").string(), "x"), FileWriteError);
  CHECK(entries(d) == 1);
  CHECK(fs::is_directory(d / "target"));
  CHECK_THROWS_AS(write_file_atomically("", "x"), FileWriteError);
  CHECK_THROWS_AS(read_whole_file((d / "nope").string()), FileWriteError);
  fs::remove_all(d);
}
