// The name registry of free policies and guards (docs/design.md section 4: the names are a contract).
// An explicit table, in registration order: adding a policy = one file + one row here.
#include <array>

#include "factories.h"

namespace allocsim {
namespace {

struct PolicyRow {
  const char* name;
  const char* description;
  std::unique_ptr<FreePolicy> (*make)(const Params&);
};
struct GuardRow {
  const char* name;
  const char* description;
  std::unique_ptr<Guard> (*make)(const Params&);
};

constexpr std::array kPolicies = {
    PolicyRow{"immediate", "return the chunk to the pool at release (XLA upstream, kComputeSynchronized)",
              &make_immediate_policy},
    PolicyRow{"deferred-callback",
              "free in a host callback after the last-use stream (ROCm/xla PR #979); immediate on enqueue failure",
              &make_deferred_callback_policy},
    PolicyRow{"host-sync", "block the host until the buffer's streams drain, then free (XLA kSynchronous)",
              &make_host_sync_policy},
    PolicyRow{"event-poll",
              "record events at release; free when a later allocation polls them done (PyTorch record_stream)",
              &make_event_poll_policy},
    PolicyRow{"stream-aware",
              "free now; another stream reusing the bytes waits on the release event (RMM stream-ordered pool)",
              &make_stream_aware_policy},
    PolicyRow{"batched-callback", "one deferred-free callback per execution or per batch_size frees",
              &make_batched_callback_policy},
    PolicyRow{"timestamp-frontier",
              "free once a polled event frontier passes the release stamp (TF GPUKernelTracker + BFC freed_at_count)",
              &make_timestamp_frontier_policy},
};

constexpr std::array kGuards = {
    GuardRow{"none", "use fresh memory at once (today's MIOpen autotuner)", &make_none_guard},
    GuardRow{"wait-compute", "stream waits on an event recorded on compute at allocation (XLA WaitForAllocation)",
             &make_wait_compute_guard},
    GuardRow{"device-sync", "synchronize all device activity before the allocation (ROCm/xla PR #980)",
             &make_device_sync_guard},
    GuardRow{"private-pool", "non-compute streams allocate from their own pool", &make_private_pool_guard},
};

}  // namespace

std::unique_ptr<FreePolicy> make_policy(std::string_view name, const Params& params) {
  for (const PolicyRow& row : kPolicies)
    if (name == row.name) return row.make(params);
  return nullptr;
}

std::unique_ptr<Guard> make_guard(std::string_view name, const Params& params) {
  for (const GuardRow& row : kGuards)
    if (name == row.name) return row.make(params);
  return nullptr;
}

std::vector<RegistryEntry> list_policies() {
  std::vector<RegistryEntry> out;
  for (const PolicyRow& row : kPolicies) out.push_back({row.name, row.description});
  return out;
}

std::vector<RegistryEntry> list_guards() {
  std::vector<RegistryEntry> out;
  for (const GuardRow& row : kGuards) out.push_back({row.name, row.description});
  return out;
}

}  // namespace allocsim
