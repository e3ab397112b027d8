// How a free policy or guard registers itself, from its own .cpp and nowhere else (the model is
// Ramulator 2.0's RAMULATOR_REGISTER_IMPLEMENTATION):
//
//   class BatchedCallbackPolicy final : public FreePolicy {
//    public:
//     static constexpr std::string_view kName = "batched-callback";  // the registered name
//     std::string_view name() const override { return kName; }
//     explicit BatchedCallbackPolicy(const Params& p);  // optional: reads its ParamSpecs
//     ...
//   };
//   ALLOCSIM_REGISTER_POLICY(BatchedCallbackPolicy, {
//       .order = 60,
//       .description = "one deferred-free callback per execution or per batch_size frees",
//       .params = {kBatchSize, policy_util::kCallbackEnqueueFailure},
//   });
//
// The class is built with `const Params&` when it has such a constructor, else default-built;
// make_policy has already checked every declared parameter's value by then.
#pragma once
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "allocsim/core/policy.h"

namespace allocsim {

/// What a policy or guard file states about itself besides its name.
struct Registration {
  /// Position in list_policies() / list_guards(), ascending. Registration runs in link order,
  /// which nothing controls, so the contract order (immediate first, none first) is this key.
  /// The built-ins use multiples of 10 so that a new entry can go between two without renumbering.
  int order = 0;
  std::string_view description;  // one line, for `allocsim list`
  /// Every `--set` key the policy reads, directly or through a helper (the default OOM path,
  /// the backend's host-callback enqueue): what `allocsim list` shows and the loader accepts.
  std::vector<ParamSpec> params = {};
};

namespace registry_detail {

using PolicyFactory = std::unique_ptr<FreePolicy> (*)(const Params&);
using GuardFactory = std::unique_ptr<Guard> (*)(const Params&);

/// Adds an entry. A second entry with the same name or order is a programming error that would
/// make the contract order ambiguous: it is reported on stderr and the program aborts (this runs
/// during static initialisation, where an exception could only terminate without a message).
bool add_policy(std::string_view name, Registration registration, PolicyFactory make);
bool add_guard(std::string_view name, Registration registration, GuardFactory make);

template <class T, class Base>
std::unique_ptr<Base> make(const Params& params) {
  if constexpr (std::is_constructible_v<T, const Params&>)
    return std::make_unique<T>(params);
  else
    return std::make_unique<T>();
}

}  // namespace registry_detail
}  // namespace allocsim

// A namespace-scope variable whose initialiser registers Class: it runs before main because the
// policies are built as an OBJECT library (policies/CMakeLists.txt says why that matters).
#define ALLOCSIM_REGISTER_POLICY(Class, ...)                                                  \
  [[maybe_unused]] const bool allocsim_registered_##Class = ::allocsim::registry_detail::add_policy( \
      Class::kName, ::allocsim::Registration __VA_ARGS__, &::allocsim::registry_detail::make<Class, ::allocsim::FreePolicy>)
#define ALLOCSIM_REGISTER_GUARD(Class, ...)                                                  \
  [[maybe_unused]] const bool allocsim_registered_##Class = ::allocsim::registry_detail::add_guard( \
      Class::kName, ::allocsim::Registration __VA_ARGS__, &::allocsim::registry_detail::make<Class, ::allocsim::Guard>)
