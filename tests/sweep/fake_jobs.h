// A stand-in for run_one in the sweep tests: a deterministic function of the job alone, with
// numbers shaped like the real trade-off (immediate + none racy; deferral costs memory; host-sync
// costs stall), so resume / ordering / report logic is tested without the simulator.
#pragma once
#include <chrono>
#include <string>
#include <thread>

#include "allocsim/results/sweep.h"

namespace allocsim::test {

inline std::uint64_t fake_policy_rank(const std::string& p) {
  if (p == "immediate") return 0;
  if (p == "deferred-callback") return 3;
  if (p == "host-sync") return 1;
  return 2;
}

inline RunResult fake_run(const results::SweepJob& j) {
  constexpr std::uint64_t MiB = 1 << 20;
  RunResult r;
  r.scenario = "fake";
  r.policy = j.policy;
  r.guard = j.guard;
  r.semaphore = j.semaphore;
  r.seed = j.seed;
  const std::uint64_t rank = fake_policy_rank(j.policy), s = static_cast<std::uint64_t>(j.semaphore);
  const bool racy = j.policy == "immediate" && j.guard == "none";
  r.races_latent = racy ? 2 + j.seed % 2 : 0;
  r.races_manifest = racy && j.semaphore == 1 ? 1 : 0;
  r.peak_live_bytes = 64 * MiB + (j.seed % 3) * MiB / 4;
  r.peak_pending_bytes = rank * s * MiB;
  r.peak_bytes_in_use = r.peak_live_bytes + r.peak_pending_bytes + (j.guard == "private-pool" ? 16 * MiB : 0);
  r.peak_pool_bytes = 768 * MiB;
  r.makespan_ns = 2'000'000 + static_cast<TimeNs>(rank * 10'000 + j.seed * 1'000);
  r.host_stall_ns = (j.policy == "host-sync" ? 900'000 : 40'000) / static_cast<TimeNs>(s) +
                    (j.guard == "wait-compute" ? 3'000 : 0) + static_cast<TimeNs>(j.seed * 100);
  // Host blocking by cause: host-sync waits in the policy, the wait-compute guard a little; the
  // semaphore blocks less the larger it is; every run ends in the same final sync.
  r.host_blocked_policy_ns = (j.policy == "host-sync" ? 800'000 / static_cast<TimeNs>(s) : 0) +
                             (j.guard == "wait-compute" ? 2'000 : 0);
  r.host_blocked_semaphore_ns = 30'000 / static_cast<TimeNs>(s);
  r.host_blocked_sync_ns = 500'000;
  r.device_idle_ns = 100'000 + static_cast<TimeNs>(rank * 1'000);
  r.allocs = 1000;
  r.frees = 1000;
  r.callbacks = j.policy == "deferred-callback" ? 1000 : 0;
  r.ooms = 0;
  return r;
}

/// fake_run, finishing in a scrambled order (later jobs of a pair sooner).
inline RunResult fake_run_scrambled(const results::SweepJob& j) {
  std::this_thread::sleep_for(std::chrono::microseconds(j.index % 2 == 0 ? 3000 : 200));
  return fake_run(j);
}

inline results::SweepSpec fake_spec() {
  results::SweepSpec s;
  s.scenario = "fake";
  s.policies = {"immediate", "deferred-callback", "host-sync"};
  s.guards = {"none", "wait-compute"};
  s.semaphores = {1, 4};
  s.seeds = 2;
  s.base_seed = 7;
  return s;
}

}  // namespace allocsim::test
