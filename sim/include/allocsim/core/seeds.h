// How one run seed becomes the seeds of its parts. A run has one seed (`--seed`, `--set seed=`,
// the scenario's `defaults: seed`, or the i-th seed of a sweep / of `allocsim-hw validate`'s
// trials); everything random in it is drawn from generators seeded here, so these three rules are
// the whole story of what a seed decides:
//  - draws made while loading a scenario (sizes {uniform_int}, {choice}): load_draws(seed);
//  - draws made while running (durations, injected failures): run_draws(seed);
//  - the i-th of several seeds (sweep `--seeds N`, validate's trials): nth(base, i).
#pragma once
#include <cstdint>

namespace allocsim::seeds {

/// The largest seed: seeds travel as `--set seed=` numbers (doubles), exact up to 2^53.
inline constexpr std::uint64_t kMax = std::uint64_t(1) << 53;

/// The run-time chooser's seed: the run seed itself, so the results recorded before load-time
/// draws were seeded per run keep their values.
constexpr std::uint64_t run_draws(std::uint64_t run_seed) { return run_seed; }

/// The load-time draws' seed: the run seed through splitmix64's mixer. Seeding the loader with the
/// run seed itself would replay the run-time chooser's raw stream, tying sizes to durations.
constexpr std::uint64_t load_draws(std::uint64_t run_seed) {
  std::uint64_t z = run_seed + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The i-th seed (i = 0, 1, ...) of a group that starts at `base`: consecutive, so a report can
/// name them as a range.
constexpr std::uint64_t nth(std::uint64_t base, std::uint64_t i) { return base + i; }

}  // namespace allocsim::seeds
