// Replay of a profile's allocator calls on BfcPool, compared event by event (see xla_check.h).
#include <limits>
#include <map>
#include <unordered_map>

#include "allocsim/pool/fake_sub_allocator.h"
#include "allocsim/scenarios/xla_check.h"
#include "hex.h"

namespace allocsim::xla {

InferredOptions infer_options(const Profile& profile, Growth growth) {
  InferredOptions inf;
  // TSL's bytes_available is memory_limit - bytes_reserved - bytes_in_use, and bytes_reserved is
  // always 0 in the TSL the README names: the sum is the limit, the same after every call.
  const AllocatorEvent& first = profile.events.front();
  const std::uint64_t limit = first.bytes_available + first.bytes_allocated;
  for (std::size_t i = 0; i < profile.events.size(); ++i) {
    const AllocatorEvent& e = profile.events[i];
    if (e.bytes_available > std::numeric_limits<std::uint64_t>::max() - e.bytes_allocated)
      throw ProfileError(profile.source,
                         "event " + std::to_string(i) + ": bytes_available + bytes_allocated overflows");
    if (e.bytes_available + e.bytes_allocated != limit)
      throw ProfileError(profile.source, "bytes_available + bytes_allocated is " +
                                             std::to_string(e.bytes_available + e.bytes_allocated) +
                                             " at event " + std::to_string(i) + " but " +
                                             std::to_string(limit) +
                                             " at event 0: not one pool with a fixed limit");
  }
  inf.options.memory_limit = limit;
  inf.limit_evidence = "bytes_available + bytes_allocated, the same at all " +
                       std::to_string(profile.events.size()) + " events";

  if (growth != Growth::kInfer) {
    inf.options.allow_growth = growth == Growth::kOn;
    inf.growth_evidence = "given, not inferred";
    return inf;
  }
  // A preallocating pool takes one region of the whole limit at its first allocation, which lands
  // at the region's base: every later chunk then lies in [first, first + limit).
  std::optional<Addr> base;
  for (const AllocatorEvent& e : profile.events) {
    if (e.kind != AllocatorEvent::Kind::kAlloc) continue;
    if (!base) base = e.addr;
    if (e.addr < *base || e.addr - *base > limit || e.allocation_bytes > limit - (e.addr - *base)) {
      inf.options.allow_growth = true;
      inf.growth_evidence = "the chunk at " + hex(e.addr) +
                            " lies outside memory_limit above the first allocation at " + hex(*base) +
                            ": the pool grows in regions";
      return inf;
    }
  }
  inf.options.allow_growth = false;
  inf.growth_evidence =
      "every chunk lies within memory_limit above the first allocation: one preallocated region";
  return inf;
}

namespace {

class Replay {
 public:
  Replay(const Profile& profile, CheckResult& result)
      : profile_(profile), r_(result), sub_(result.inferred.options), pool_(result.inferred.options, sub_) {
    sub_.set_listener([this](bool added, Addr begin, std::uint64_t) {
      if (!added) return;  // regions go back only at the end (garbage collection is off)
      sim_regions_.emplace(begin, static_cast<std::uint32_t>(r_.region_bases.size()));
      r_.region_bases.push_back(0);  // set by the region's first allocation
      based_.push_back(false);
    });
  }
  ~Replay() { sub_.set_listener(nullptr); }

  void run() {
    r_.replayed.reserve(profile_.events.size());
    r_.expected.reserve(profile_.events.size());
    for (std::size_t i = 0; i < profile_.events.size(); ++i) {
      const AllocatorEvent& e = profile_.events[i];
      const bool same = e.kind == AllocatorEvent::Kind::kAlloc ? allocate(e, i) : deallocate(e, i);
      if (!same) {
        r_.mismatch = i;
        return;
      }
    }
    r_.live_at_end = live_.size();
  }

 private:
  struct Live {
    Addr sim;
    std::uint32_t region;
  };

  [[noreturn]] void fail(std::size_t i, const std::string& message) const {
    throw ProfileError(profile_.source, "event " + std::to_string(i) + ": " + message);
  }

  // The region of the replay holding `sim` and the offset in it.
  std::pair<std::uint32_t, std::uint64_t> locate(Addr sim) const {
    auto it = sim_regions_.upper_bound(sim);
    --it;  // an address the pool returned lies in one of its regions
    return {it->second, sim - it->first};
  }

  bool allocate(const AllocatorEvent& e, std::size_t i) {
    if (live_.contains(e.addr))
      fail(i, "allocation at " + hex(e.addr) + ", which is live (events are missing)");
    const std::optional<Addr> sim = pool_.allocate(e.requested_bytes);
    ReplayedEvent rep;
    ProfileSide exp{e.allocation_bytes, 0, e.bytes_allocated, e.peak_bytes_in_use};
    if (!sim) {
      rep.placed = false;
      record(rep, exp);
      return false;
    }
    std::tie(rep.region, rep.offset) = locate(*sim);
    // A region's first allocation reveals the real region's base: the chunk sits at the same
    // offset in both (the start, for a fresh region).
    if (!based_[rep.region]) {
      r_.region_bases[rep.region] = e.addr - rep.offset;
      based_[rep.region] = true;
    }
    exp.offset = e.addr - r_.region_bases[rep.region];
    rep.chunk_bytes = pool_.chunk_size(*sim);
    live_.emplace(e.addr, Live{*sim, rep.region});
    return record(rep, exp);
  }

  bool deallocate(const AllocatorEvent& e, std::size_t i) {
    const auto it = live_.find(e.addr);
    if (it == live_.end())
      fail(i, "free of " + hex(e.addr) +
                  ", which no earlier allocation returned (was the profiler started before "
                  "the program's first array?)");
    ReplayedEvent rep;
    rep.region = it->second.region;
    rep.offset = locate(it->second.sim).second;
    rep.chunk_bytes = pool_.chunk_size(it->second.sim);
    // The freed chunk's offset is its allocation's, compared there; frees compare the chunk's size.
    ProfileSide exp{e.allocation_bytes, e.addr - r_.region_bases[rep.region], e.bytes_allocated,
                    e.peak_bytes_in_use};
    pool_.deallocate(it->second.sim);
    live_.erase(it);
    return record(rep, exp);
  }

  bool record(ReplayedEvent& rep, const ProfileSide& exp) {
    const BfcStats& s = pool_.stats();
    rep.bytes_in_use = s.bytes_in_use;
    rep.peak_bytes_in_use = s.peak_bytes_in_use;
    r_.peak_bytes_in_use = s.peak_bytes_in_use;
    r_.replayed.push_back(rep);
    r_.expected.push_back(exp);
    return rep.placed && rep.chunk_bytes == exp.chunk_bytes && rep.offset == exp.offset &&
           rep.bytes_in_use == exp.bytes_in_use && rep.peak_bytes_in_use == exp.peak_bytes_in_use;
  }

  const Profile& profile_;
  CheckResult& r_;
  FakeSubAllocator sub_;
  BfcPool pool_;
  std::map<Addr, std::uint32_t> sim_regions_;  // replay region begin -> its index
  std::unordered_map<Addr, Live> live_;        // profile address of a live chunk -> the replay's
  std::vector<bool> based_;                    // per region: base known
};

}  // namespace

CheckResult check_profile(const Profile& profile, Growth growth) {
  CheckResult result;
  result.inferred = infer_options(profile, growth);
  Replay(profile, result).run();
  return result;
}

}  // namespace allocsim::xla
