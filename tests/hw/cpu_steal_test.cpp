// read_cpu_ticks (hw/include/allocsim/hw/cpu_steal.h): /proc/stat's first line, its total and its
// steal, and nothing from a file without them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "allocsim/hw/cpu_probe.h"
#include "allocsim/hw/cpu_steal.h"

namespace {

std::string file_with(const std::string& text) {
  const std::string path = "/tmp/allocsim_cpu_steal_test." + std::to_string(::getpid());
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("cpu ticks: the total stops at steal, the guest time already being in user and nice", "[hw][steal]") {
  const std::string path = file_with("cpu  100 2 30 4000 5 6 7 8 50 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n");
  const auto t = allocsim::hw::read_cpu_ticks(path);
  REQUIRE(t);
  CHECK(t->total == 100 + 2 + 30 + 4000 + 5 + 6 + 7 + 8);
  CHECK(t->steal == 8);
  std::remove(path.c_str());
}

TEST_CASE("cpu ticks: nothing from a missing file, another first line or one without steal", "[hw][steal]") {
  CHECK(!allocsim::hw::read_cpu_ticks("/no/such/stat"));
  const std::string other = file_with("intr 1 2 3\n");
  CHECK(!allocsim::hw::read_cpu_ticks(other));
  const std::string short_line = file_with("cpu  100 2 30 4000 5 6 7\n");
  CHECK(!allocsim::hw::read_cpu_ticks(short_line));
  std::remove(other.c_str());
  std::remove(short_line.c_str());
}

TEST_CASE("cpu ticks: this machine's /proc/stat reads, and its steal is part of its total", "[hw][steal]") {
  // The machines this project builds on are Linux with a steal field (Debian 12's kernels have it).
  const auto t = allocsim::hw::read_cpu_ticks();
  REQUIRE(t);
  CHECK(t->total > 0);
  CHECK(t->steal <= t->total);
}

TEST_CASE("cpu probe: the work takes longer the more of it there is", "[hw][steal]") {
  // Not a timing target: only that the chain is not optimised away (it would take ~0 at any length).
  std::int64_t short_run = allocsim::hw::time_cpu_probe(1000), long_run = 0;
  for (int i = 0; i < 5; ++i) short_run = std::min(short_run, allocsim::hw::time_cpu_probe(1000));
  long_run = allocsim::hw::time_cpu_probe(4'000'000);
  CHECK(long_run > 10 * short_run);
}
