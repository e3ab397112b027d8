// The sim backend's pools, memory accounting and lifetime findings: the Backend/Device calls that
// place, free and count memory (the same DevicePools and MemoryAccounting as the HIP backend), and
// the records of the lifetime findings the engine owns (lifetime_findings.h says why).
#include <string>

#include "sim_device.h"

namespace allocsim {

bool SimDevice::pool_alive(PoolId p) const { return pools_.alive(p); }

std::optional<Chunk> SimDevice::pool_allocate(PoolId p, std::uint64_t bytes) {
  charge(cost(&PlatformProfile::host_alloc_ns));
  if (!DevicePool::known(p)) {
    warn("allocation from an unknown pool fails");
    return std::nullopt;
  }
  DevicePool* dp = pools_.get(p);
  if (!dp) {
    warn("allocation from a destroyed pool fails");
    return std::nullopt;
  }
  const std::optional<Addr> a = dp->bfc().allocate(bytes);
  mem_.sample(agent_now());  // on failure too: garbage collection may have shrunk the pool
  if (!a) {
    if (dp->bound_refusals())
      warn("pool " + std::to_string(p) + " ran out of address space: placement left the oracle's");
    return std::nullopt;
  }
  const Chunk chunk{p, *a, dp->bfc().chunk_size(*a)};
  // Pool calls conflict with each other (which chunk an allocation gets depends on their order),
  // not with the device ops on the bytes: a hold past those reorders nothing the pool decides, and
  // what the bytes hold is decided by the device ops' own order (docs/explore.md, "pruning").
  touch(StepObject{StepObject::Kind::Pool, true, std::uint64_t(p)});
  if (steps_.active()) steps_.pool_call(agent(), std::uint64_t(p));
  return chunk;
}

void SimDevice::pool_free(const Chunk& chunk, BufferId buffer) {
  // The free takes effect when called; its host cost (host_free_ns) is charged after it, so a
  // release followed at once by its free (immediate) moves the bytes live -> free atomically.
  struct ChargeAfter {
    SimDevice& d;
    ~ChargeAfter() { d.charge_now(d.cost(&PlatformProfile::host_free_ns)); }
  } charge_after{*this};
  const TimeNs t = agent_now();
  const PoolId p = chunk.pool;
  if (!DevicePool::known(p)) return warn("free into an unknown pool ignored");
  touch(StepObject{StepObject::Kind::Pool, true, std::uint64_t(p)});  // see pool_allocate
  if (steps_.active()) steps_.pool_call(agent(), std::uint64_t(p));
  BufferInfo info;
  info.id = buffer;
  info.chunk = chunk;
  info.requested_bytes = mem_.requested_bytes(chunk).value_or(0);
  if (pools_.destroyed(p)) {
    mem_.on_pool_free(chunk);  // (not returned to a live pool: a leak too, counted at the end)
    const std::string who = current_ == Agent::Callback ? "a callback" : "the host";
    lifetime_.report(lifetime_record(FindingKind::CallbackAfterPoolDestroyed, info,
                                     AddrRange{chunk.addr, chunk.bytes},
                                     who + " freed buffer '" + buffer_name(buffer) + "' into pool " +
                                         std::to_string(p) + " after shutdown destroyed it"));
    mem_.sample(t);
    return;
  }
  DevicePool* dp = pools_.find(p);
  if (!dp || !dp->bfc().is_live(chunk.addr)) {
    lifetime_.report(lifetime_record(
        FindingKind::DoubleFree, info, AddrRange{chunk.addr, chunk.bytes},
        "pool free of a chunk that is not allocated (buffer '" + buffer_name(buffer) + "' freed twice)"));
    return;
  }
  dp->bfc().deallocate(chunk.addr);
  ++frees_;
  mem_.on_pool_free(chunk);
  lifetime_.returned(chunk);
  emit([&](auto& o) { o.on_pool_free(agent(), chunk, buffer, t); });
  mem_.sample(t);
  if (host_.wait == HostWait::PoolFree && host_.wait_pool == p && !host_.waking)
    host_wake(t + host_wakeup_cost());
}

void SimDevice::destroy_pool(PoolId p) {
  if (!pools_.destroy(p)) return;
  const TimeNs t = agent_now();
  emit([&](auto& o) { o.on_pool_destroyed(p, t); });
  mem_.sample(t);
}

void SimDevice::note_alloc(const BufferInfo& buf) {
  ++allocs_;
  mem_.on_alloc(buf);
  lifetime_.allocated(buf);
  const TimeNs t = agent_now();
  emit([&](auto& o) { o.on_alloc(agent(), buf, t); });
  mem_.sample(t);
}

void SimDevice::note_host_release(const BufferInfo& buf) {
  charge(cost(&PlatformProfile::release_bookkeeping_ns));
  const TimeNs t = agent_now();
  ++host_.releases;
  if (buf.id >= 0 && std::size_t(buf.id) < release_time_.size()) release_time_[std::size_t(buf.id)] = t;
  lifetime_.released(buf.chunk, t);
  emit([&](auto& o) { o.on_host_release(buf, t); });
  // Sampled later: any other call, a block, a yield or the end of the program flushes it at t.
  mem_.on_host_release(buf, t);
}

void SimDevice::note_lifetime_violation(FindingKind kind, const BufferInfo& buf, std::string detail) {
  Finding f = lifetime_record(kind, buf, AddrRange{buf.chunk.addr, buf.chunk.bytes}, std::move(detail));
  // A leak is counted once per allocation instance: this one, held by the host at the end, is not
  // counted again among those never returned to the pool (LifetimeFindings::finish).
  if (kind == FindingKind::Leak) return lifetime_.report_leak(std::move(f), buf.chunk);
  lifetime_.report(std::move(f));
}

Finding SimDevice::lifetime_record(FindingKind kind, const BufferInfo& buf, AddrRange range,
                                   std::string detail) {
  Finding f;
  f.kind = kind;
  f.range = range;
  f.first.alloc = buf.id;
  f.first.alloc_bytes = buf.requested_bytes;
  f.first.alloc_stream = valid_stream(buf.alloc_stream) ? streams_[buf.alloc_stream].name : "";
  f.first.alloc_time = buf.alloc_time;
  if (buf.id >= 0 && std::size_t(buf.id) < release_time_.size())
    f.first.release_time = release_time_[std::size_t(buf.id)];
  f.first.op = "host";
  f.first.stream = current_ == Agent::Host ? "host" : "callback-thread";
  f.first.start = f.first.end = agent_now();
  f.action_between = std::move(detail);
  return f;
}

Finding SimDevice::unreturned_record(const BufferInfo& buf, TimeNs release_time) const {
  Finding f;
  f.kind = FindingKind::Leak;
  f.range = AddrRange{buf.chunk.addr, buf.chunk.bytes};
  f.first.alloc = buf.id;
  f.first.alloc_bytes = buf.requested_bytes ? buf.requested_bytes : buf.chunk.bytes;
  f.first.alloc_stream = valid_stream(buf.alloc_stream) ? streams_[buf.alloc_stream].name : "?";
  f.first.alloc_time = buf.alloc_time;
  f.first.release_time = release_time;
  f.action_between = "never returned to the pool by the end of the run";
  return f;
}

std::string SimDevice::buffer_name(BufferId b) const {
  if (b >= 0 && std::size_t(b) < program_.buffer_names.size()) return program_.buffer_names[std::size_t(b)];
  return "#" + std::to_string(b);
}

}  // namespace allocsim
