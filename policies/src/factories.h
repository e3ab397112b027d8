// Factory functions of every free policy and guard, one per file under policies/ and guards/.
// registry.cpp lists them in an explicit table: static-initialisation self-registration would be
// dropped by the linker from a static library, so there is none.
#pragma once
#include <memory>

#include "allocsim/core/policy.h"

namespace allocsim {

std::unique_ptr<FreePolicy> make_immediate_policy(const Params& params);
std::unique_ptr<FreePolicy> make_deferred_callback_policy(const Params& params);
std::unique_ptr<FreePolicy> make_host_sync_policy(const Params& params);
std::unique_ptr<FreePolicy> make_event_poll_policy(const Params& params);
std::unique_ptr<FreePolicy> make_stream_aware_policy(const Params& params);
std::unique_ptr<FreePolicy> make_batched_callback_policy(const Params& params);
std::unique_ptr<FreePolicy> make_timestamp_frontier_policy(const Params& params);

std::unique_ptr<Guard> make_none_guard(const Params& params);
std::unique_ptr<Guard> make_wait_compute_guard(const Params& params);
std::unique_ptr<Guard> make_device_sync_guard(const Params& params);
std::unique_ptr<Guard> make_private_pool_guard(const Params& params);

}  // namespace allocsim
