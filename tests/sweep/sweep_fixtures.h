// What the sweep tests share: an empty folder of their own per test, and sweep options that keep
// the progress meter quiet.
#pragma once
#include <filesystem>
#include <string>
#include <unistd.h>

#include "allocsim/results/sweep.h"

namespace allocsim::test {

/// <tmp>/allocsim-<prefix>-<name>-<pid>, removed if it exists (the sweep creates it).
inline std::filesystem::path fresh_sweep_dir(const std::string& prefix, const std::string& name) {
  auto d = std::filesystem::temp_directory_path() /
           ("allocsim-" + prefix + "-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d;
}

inline results::SweepOptions quiet_sweep(unsigned threads) {
  results::SweepOptions o;
  o.threads = threads;
  o.progress = results::ProgressStyle::Off;
  return o;
}

}  // namespace allocsim::test
