// MemoryAccounting: counters and peaks from what a backend feeds in (see the header).
#include "allocsim/pool/memory_accounting.h"

namespace allocsim {
namespace {
void raise(MemoryPeak& peak, std::uint64_t bytes, TimeNs t) {
  if (bytes > peak.bytes) peak = MemoryPeak{bytes, t};
}
bool same(const MemoryCounters& a, const MemoryCounters& b) {
  return a.live == b.live && a.pending == b.pending && a.in_use == b.in_use && a.pool == b.pool;
}
}  // namespace

void MemoryAccounting::on_alloc(const BufferInfo& buf) {
  mem_.live += buf.requested_bytes;
  allocations_[key(buf.chunk)] = Allocation{buf.requested_bytes, false};
}

void MemoryAccounting::on_host_release(const BufferInfo& buf, TimeNs t) {
  auto it = allocations_.find(key(buf.chunk));
  if (it != allocations_.end() && !it->second.released) {
    it->second.released = true;
    mem_.live -= it->second.requested;
    mem_.pending += it->second.requested;
  }
  flush();  // an earlier release's state was visible until now
  release_at_ = t;
}

void MemoryAccounting::on_pool_free(const Chunk& chunk) {
  auto it = allocations_.find(key(chunk));
  if (it == allocations_.end()) return;
  (it->second.released ? mem_.pending : mem_.live) -= it->second.requested;
  allocations_.erase(it);
}

std::optional<std::uint64_t> MemoryAccounting::requested_bytes(const Chunk& chunk) const {
  auto it = allocations_.find(key(chunk));
  if (it == allocations_.end()) return std::nullopt;
  return it->second.requested;
}

void MemoryAccounting::sample(TimeNs t) {
  release_at_.reset();  // this sample carries any deferred release state too
  mem_.in_use = pools_.bytes_in_use();
  mem_.pool = pools_.pool_bytes();
  if (last_sampled_ && same(*last_sampled_, mem_)) return;
  last_sampled_ = mem_;
  raise(peaks_.in_use, mem_.in_use, t);
  raise(peaks_.live, mem_.live, t);
  raise(peaks_.pending, mem_.pending, t);
  raise(peaks_.pool, mem_.pool, t);
  if (sink_) sink_(t, mem_);
}

void MemoryAccounting::fill(RunMeasures& r) const {
  r.peak_bytes_in_use = peaks_.in_use.bytes, r.peak_in_use_time = peaks_.in_use.time;
  r.peak_live_bytes = peaks_.live.bytes, r.peak_live_time = peaks_.live.time;
  r.peak_pending_bytes = peaks_.pending.bytes, r.peak_pending_time = peaks_.pending.time;
  r.peak_pool_bytes = peaks_.pool.bytes, r.peak_pool_time = peaks_.pool.time;
}

}  // namespace allocsim
