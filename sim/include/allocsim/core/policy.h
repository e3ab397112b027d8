// Free policies and guards: the decisions. Implementations live in policies/, one file each,
// registered by name; both backends run them unchanged through backend.h.
#pragma once
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "allocsim/core/backend.h"

namespace allocsim {

/// What the host does when an allocation fails.
struct OomDecision {
  bool retry = false;  // true: run the appended steps, then try the allocation again
};

/// What happens when the host releases a buffer (host refcount -> 0).
/// Memory accounting: from release until Backend::pool_free(chunk) the bytes are "pending".
class FreePolicy {
 public:
  virtual ~FreePolicy() = default;
  virtual std::string_view name() const = 0;

  /// The host released `buf`. Append steps that eventually call backend.pool_free(buf.chunk, buf.id).
  virtual void on_release(Backend& b, const BufferInfo& buf, Plan& plan) = 0;
  /// Before the host allocates for `stream` (event-poll / timestamp-frontier reclaim parked chunks).
  virtual void before_allocate(Backend& b, StreamId stream, std::uint64_t bytes, Plan& plan) {
    (void)b, (void)stream, (void)bytes, (void)plan;
  }
  /// After a successful allocation (stream-aware inserts a cross-stream dependency here).
  virtual void after_allocate(Backend& b, const BufferInfo& buf, Plan& plan) { (void)b, (void)buf, (void)plan; }
  /// An allocation failed. `attempt` counts from 0; `first_failure` is when attempt 0 failed;
  /// `scratch` is true for autotuner scratch (non-compute stream), which fails fast.
  virtual OomDecision on_oom(Backend& b, StreamId stream, std::uint64_t bytes, bool scratch, int attempt,
                             TimeNs first_failure, Plan& plan);
  /// The host ended an execution (EndExecution op): batched policies flush here.
  virtual void on_end_execution(Backend& b, Plan& plan) { (void)b, (void)plan; }
  /// Device state is being torn down: hand back anything still parked.
  virtual void on_shutdown(Backend& b, Plan& plan) { (void)b, (void)plan; }
};

/// What a non-compute stream does before using memory fresh from the pool.
class Guard {
 public:
  virtual ~Guard() = default;
  virtual std::string_view name() const = 0;
  /// The pool a non-compute stream allocates from (private-pool returns kPrivatePool).
  virtual PoolId pool_for(StreamId stream) const { (void)stream; return kSharedPool; }
  /// Before the allocation (device-sync: exclusive lock + synchronize all activity).
  virtual void before_allocate(Backend& b, StreamId stream, Plan& plan) { (void)b, (void)stream, (void)plan; }
  /// After the allocation (wait-compute: `stream` waits on an event recorded on compute).
  virtual void after_allocate(Backend& b, const BufferInfo& buf, Plan& plan) { (void)b, (void)buf, (void)plan; }
};

/// A `--set key=value` parameter that a policy or guard reads, declared in its registration
/// (policies/include/allocsim/policies/registration.h): the one place holding its default, the
/// values it accepts and what it means. `allocsim list` prints it; the scenario loader accepts its
/// key (declared_param_keys()). The text members view string literals, so a spec can be constexpr
/// and shared between policies without static-initialisation order trouble. Its functions are
/// defined with the registry (policies/src/registry.cpp).
struct ParamSpec {
  std::string_view key;
  double default_value = 0;
  double min = 0;
  double max = std::numeric_limits<double>::infinity();
  bool whole = false;  // only whole numbers (counts, bytes, nanoseconds)
  std::string_view description;

  /// `params`' value for `key`, or the default when it is unset. Throws std::invalid_argument
  /// ("KEY=VALUE: expected RANGE") when the value is outside what the spec accepts.
  double read(const Params& params) const;
  /// What the spec accepts, e.g. "a whole number between 0 and 1000000000".
  std::string range_text() const;
  /// The default as one would type it after `--set KEY=` (whole numbers in full).
  std::string default_text() const;
};

struct RegistryEntry {
  std::string name;
  std::string description;         // one line, for `allocsim list`
  std::vector<ParamSpec> params{};  // a policy's or guard's declared parameters (none for scenarios)
};

/// Registries (policies/src/registry.cpp); every policy and guard file registers itself. Names
/// and order are a contract (docs/design.md section 4): the order is `allocsim list`'s and
/// `--policies all`'s, hence the row order of every sweep report.
/// make_* return nullptr for an unknown name, and throw std::invalid_argument naming the
/// policy or guard when `params` holds a value one of its declared parameters does not accept.
std::unique_ptr<FreePolicy> make_policy(std::string_view name, const Params& params);
std::unique_ptr<Guard> make_guard(std::string_view name, const Params& params);
std::vector<RegistryEntry> list_policies();  // by order key: immediate first
std::vector<RegistryEntry> list_guards();    // by order key: none first
/// Every key a registered policy or guard declares, each once, in list order (policies first).
std::vector<std::string> declared_param_keys();

}  // namespace allocsim
