// Every nondeterministic choice of a run goes through a Chooser (docs/design.md section 10), so a
// schedule explorer can replace the default seeded random source without touching the engine.
#pragma once
#include <cstdint>
#include <memory>

#include "allocsim/core/program.h"

namespace allocsim {

class Chooser {
 public:
  virtual ~Chooser() = default;
  /// A duration drawn from `d`, in ns, clamped to >= 0.
  virtual TimeNs duration(const Duration& d) = 0;
  /// Bernoulli(p): used for injected failures (e.g. callback_enqueue_failure).
  virtual bool chance(double p) = 0;
  /// Uniform integer in [0, n): e.g. ordering of simultaneous events by an explorer.
  virtual std::uint64_t pick(std::uint64_t n) = 0;
};

/// The default: boost::random::mt19937_64 + Boost.Random distributions, whose output is the same on
/// every platform and standard library (std:: distributions are not). Implemented in sim/.
std::unique_ptr<Chooser> make_seeded_chooser(std::uint64_t seed);

}  // namespace allocsim
