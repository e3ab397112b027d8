// The buffer -> device work model of xla_usage.h.
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "allocsim/scenarios/xla_usage.h"

namespace allocsim::xla {

ThreadRole thread_role(std::string_view name) {
  // Thread names as TSL's thread pools and PjRt's callback thread set them.
  if (name.starts_with("tf_pjrt_compile_thread_pool")) return ThreadRole::kCompile;
  if (name.starts_with("py_xla_callback")) return ThreadRole::kCallback;
  return ThreadRole::kHost;
}

std::string_view role_name(ThreadRole role) {
  switch (role) {
    case ThreadRole::kCompile:
      return "compile";
    case ThreadRole::kCallback:
      return "callback";
    case ThreadRole::kHost:
      break;
  }
  return "host";
}

namespace {

// XLA's compute stream is the one the executions' work runs on. (The "(Compute" in a stream's
// name only says CUPTI saw kernels on it: the autotuner's streams have it too.)
std::optional<std::uint32_t> find_compute_stream(const Profile& p, const Usage& u) {
  std::vector<std::size_t> assigned(p.streams.size(), 0);
  for (std::size_t o = 0; o < p.device_ops.size(); ++o)
    if (u.op_execution[o] >= 0) ++assigned[p.device_ops[o].stream];
  const auto most = std::max_element(assigned.begin(), assigned.end());
  if (most == assigned.end() || *most == 0) return std::nullopt;
  return std::uint32_t(most - assigned.begin());
}

// Splits each program's device ops over its executions (xla_usage.h).
void assign_ops(const Profile& p, Usage& u) {
  u.op_execution.assign(p.device_ops.size(), -1);
  u.execution_ops.assign(p.executes.size(), {});
  std::map<std::string, std::vector<std::uint32_t>> runs;  // program -> its executions, by start
  for (std::uint32_t e = 0; e < p.executes.size(); ++e) runs[p.executes[e].program].push_back(e);
  std::vector<std::vector<std::uint32_t>> ops_of(p.modules.size());  // module -> ops, by start
  for (std::uint32_t o = 0; o < p.device_ops.size(); ++o)
    if (p.device_ops[o].module != 0) ops_of[p.device_ops[o].module].push_back(o);
  for (std::size_t m = 1; m < p.modules.size(); ++m) {
    const auto run = runs.find(p.modules[m]);
    if (run == runs.end()) continue;  // no execution span of it in the capture
    const std::vector<std::uint32_t>& execs = run->second;
    const std::vector<std::uint32_t>& ops = ops_of[m];
    const std::size_t each = ops.size() / execs.size();
    std::size_t next = 0;
    for (std::size_t i = 0; i < execs.size(); ++i) {
      const std::size_t take = each + (i == 0 ? ops.size() % execs.size() : 0);
      for (std::size_t k = 0; k < take; ++k, ++next) {
        u.op_execution[ops[next]] = std::int32_t(execs[i]);
        u.execution_ops[execs[i]].push_back(ops[next]);
      }
    }
  }
  for (auto& list : u.execution_ops) std::sort(list.begin(), list.end());  // ops are sorted by start
}

void pair_events(const Profile& p, Usage& u) {
  std::unordered_map<Addr, std::uint32_t> live;  // address -> buffer
  u.event_buffer.resize(p.events.size());
  for (std::size_t i = 0; i < p.events.size(); ++i) {
    const AllocatorEvent& e = p.events[i];
    const ThreadRole role = thread_role(p.threads[e.thread]);
    if (e.kind == AllocatorEvent::Kind::kAlloc) {
      const auto id = std::uint32_t(u.buffers.size());
      if (!live.emplace(e.addr, id).second)
        throw ProfileError(p.source,
                           "allocator event " + std::to_string(i) + ": allocation at a live address");
      if (e.allocation_bytes == 0 || e.addr + e.allocation_bytes < e.addr)
        throw ProfileError(p.source, "allocator event " + std::to_string(i) +
                                         ": an empty chunk or one past the address space");
      UsedBuffer b;
      b.alloc_event = i;
      b.alloc_role = role;
      b.addr = e.addr;
      b.bytes = e.allocation_bytes;
      b.alloc_ps = e.time_ps;
      u.buffers.push_back(std::move(b));
      u.event_buffer[i] = id;
    } else {
      const auto it = live.find(e.addr);
      if (it == live.end())
        throw ProfileError(
            p.source, "allocator event " + std::to_string(i) + ": free of an address no live allocation has");
      UsedBuffer& b = u.buffers[it->second];
      b.free_event = i;
      b.free_role = role;
      b.free_ps = e.time_ps;
      u.event_buffer[i] = it->second;
      live.erase(it);
    }
  }
}

void map_buffers(const Profile& p, Usage& u) {
  // Ops of no execution, by start: the autotuner's work (and transfers).
  std::vector<std::uint32_t> loose;
  for (std::uint32_t o = 0; o < p.device_ops.size(); ++o)
    if (u.op_execution[o] < 0) loose.push_back(o);
  auto starts_before = [&](std::uint32_t o, std::int64_t t) { return p.device_ops[o].start_ps < t; };
  for (UsedBuffer& b : u.buffers) {
    if (b.alloc_role == ThreadRole::kCompile) {
      auto it = std::lower_bound(loose.begin(), loose.end(), b.alloc_ps, starts_before);
      for (; it != loose.end() && p.device_ops[*it].start_ps < b.free_ps; ++it) b.ops.push_back(*it);
      continue;
    }
    for (std::uint32_t e = 0; e < p.executes.size(); ++e) {
      const ExecuteSpan& x = p.executes[e];
      if (x.start_ps >= b.free_ps) break;  // sorted by start
      if (x.start_ps + x.duration_ps <= b.alloc_ps) continue;
      b.executions.push_back(e);
      b.ops.insert(b.ops.end(), u.execution_ops[e].begin(), u.execution_ops[e].end());
    }
    std::sort(b.ops.begin(), b.ops.end());
  }
}

}  // namespace

Usage map_usage(const Profile& profile) {
  Usage u;
  assign_ops(profile, u);
  u.compute_stream = find_compute_stream(profile, u);
  pair_events(profile, u);
  map_buffers(profile, u);
  return u;
}

}  // namespace allocsim::xla
