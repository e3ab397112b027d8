// Guard `none`: a non-compute stream uses memory fresh from the shared pool at once.
//
// Contract: no action. Whether the new user is ordered after the bytes' previous users is left
//   entirely to the free policy (with `immediate` it is not: the hazard this project studies).
// Analogue: today's MIOpen autotuner in XLA (since 2026-04): scratch from the client's BFC pool on
//   its own new stream, MemZero'd with no wait on compute.
// Cost: nothing.
#include "allocsim/policies/registration.h"

namespace allocsim {
namespace {

class NoneGuard final : public Guard {
 public:
  static constexpr std::string_view kName = "none";
  std::string_view name() const override { return kName; }
};

ALLOCSIM_REGISTER_GUARD(NoneGuard, {
    .order = 10,
    .description = "use fresh memory at once (today's MIOpen autotuner)",
});

}  // namespace
}  // namespace allocsim
