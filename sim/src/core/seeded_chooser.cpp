// The default Chooser: a seeded mt19937_64 with Boost.Random distributions. Boost's distribution
// algorithms are fixed in its source, so the same seed gives the same durations with any compiler
// or standard library (std::normal_distribution and friends do not promise that).
#include <algorithm>
#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>

#include "allocsim/core/chooser.h"

namespace allocsim {
namespace {

class SeededChooser final : public Chooser {
 public:
  explicit SeededChooser(std::uint64_t seed) : rng_(seed) {}

  TimeNs duration(const Duration& d) override {
    double v = 0;
    switch (d.kind) {
      case Duration::Kind::Fixed: return clamp(d.a);
      case Duration::Kind::Uniform:
        v = d.b > d.a ? boost::random::uniform_real_distribution<double>(d.a, d.b)(rng_) : d.a;
        break;
      case Duration::Kind::Normal:
        v = d.b > 0 ? boost::random::normal_distribution<double>(d.a, d.b)(rng_) : d.a;
        break;
      case Duration::Kind::LogNormal:
        // Duration gives the mean and stddev of the duration itself; Boost's lognormal takes the
        // mean and sigma of the underlying normal, so convert: sigma^2 = ln(1 + s^2/m^2),
        // mu = ln(m) - sigma^2/2.
        if (d.b > 0 && d.a > 0) {
          const double sigma2 = std::log1p((d.b * d.b) / (d.a * d.a));
          const double mu = std::log(d.a) - sigma2 / 2;
          v = boost::random::lognormal_distribution<double>(mu, std::sqrt(sigma2))(rng_);
        } else {
          v = d.a;
        }
        break;
      case Duration::Kind::Exponential:
        v = d.a > 0 ? boost::random::exponential_distribution<double>(1.0 / d.a)(rng_) : 0;
        break;
    }
    return clamp(v);
  }

  bool chance(double p) override {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return boost::random::bernoulli_distribution<double>(p)(rng_);
  }

  std::uint64_t pick(std::uint64_t n) override {
    if (n <= 1) return 0;
    return boost::random::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_);
  }

 private:
  static TimeNs clamp(double v) {
    if (!(v > 0)) return 0;  // also catches NaN
    return v > 1e18 ? TimeNs(1e18) : TimeNs(std::llround(v));
  }
  boost::random::mt19937_64 rng_;
};

}  // namespace

std::unique_ptr<Chooser> make_seeded_chooser(std::uint64_t seed) { return std::make_unique<SeededChooser>(seed); }

}  // namespace allocsim
