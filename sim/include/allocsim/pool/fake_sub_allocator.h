// FakeSubAllocator: deterministic region addresses, touching no memory. It is THE placement rule
// of both backends (pool/device_pool.h): the simulator uses the addresses as they are, the HIP
// backend as offsets from the pool's base into one real device allocation.
//
// Mirrors the oracle harness's fake (tests/data/tsl_bfc/README.md): the first region starts
// at `base`; each next one at the first multiple of max(2 MiB, alignment) at or after the end of
// the previous one. Addresses are never reused, not even after a region is freed, so a stale
// pointer into a collected region can never alias a newer one. It never fails unless a
// capacity is set (to exercise the pool's x0.9 back-off) or an address bound is (the end of the
// real allocation behind the addresses, on hardware). A refused region moves nothing, so the
// smaller retries of the back-off are placed where the refused one would have been. Region +/-
// notifications let the replay print `region+` / `region-` lines in the order they happen.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "allocsim/pool/bfc_pool.h"

namespace allocsim {

class FakeSubAllocator final : public SubAllocator {
 public:
  static constexpr std::uint64_t kRegionAlignment = std::uint64_t{2} << 20;
  /// added = true for alloc, false for free.
  using RegionListener = std::function<void(bool added, Addr begin, std::uint64_t bytes)>;

  explicit FakeSubAllocator(const BfcOptions& options, Addr base = 0)
      : base_(base), bump_(base), coalescing_(options.coalesce_regions) {}

  std::optional<Addr> alloc(std::uint64_t alignment, std::uint64_t bytes) override;
  void free(Addr addr, std::uint64_t bytes) override;
  bool supports_coalescing() const override { return coalescing_; }

  void set_listener(RegionListener listener) { listener_ = std::move(listener); }
  /// Refuse any alloc that would make the held bytes exceed `bytes` (default: unlimited).
  void set_capacity(std::uint64_t bytes) { capacity_ = bytes; }
  /// Refuse any region that would end past `end`: the addresses must stay inside the real device
  /// allocation that backs them (hw). Below that bound the addresses are the unbounded ones.
  void set_address_bound(Addr end) { address_bound_ = end; }

  Addr base() const { return base_; }
  /// Regions handed out and not freed (a free spanning several adjacent regions frees them all).
  std::size_t regions_held() const { return held_.size(); }
  std::uint64_t bytes_held() const { return bytes_held_; }
  std::uint64_t alloc_calls() const { return alloc_calls_; }
  std::uint64_t free_calls() const { return free_calls_; }
  /// Allocs refused by the capacity or the address bound.
  std::uint64_t refusals() const { return refusals_; }

 private:
  Addr base_;
  Addr bump_;  // end of the most recently handed-out region
  bool coalescing_;
  std::optional<std::uint64_t> capacity_;
  std::optional<Addr> address_bound_;
  std::map<Addr, std::uint64_t> held_;
  std::uint64_t bytes_held_ = 0;
  std::uint64_t alloc_calls_ = 0, free_calls_ = 0, refusals_ = 0;
  RegionListener listener_;
};

}  // namespace allocsim
