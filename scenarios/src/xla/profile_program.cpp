// Profile -> host program (the model is in xla_program.h, the buffer mapping in xla_usage.h).
//
// Items (execution begin / launch / end, allocator calls, loose device ops) are sorted by profile
// time and emitted through ProgramBuilder with HostDelay gaps, so the allocator's calls keep
// their own order and the replay's pool sees the same sequence the real one did.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "../param_keys.h"
#include "../program_builder.h"
#include "allocsim/scenarios/xla_check.h"
#include "allocsim/scenarios/xla_program.h"
#include "allocsim/scenarios/xla_usage.h"

namespace allocsim::xla {
namespace {

using scenario_detail::BuildError;
using scenario_detail::ProgramBuilder;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Item {
  // Order among items at the same time: an execution begins, then launches (before the free that
  // triggered the launch), then allocator calls and loose ops, then it ends.
  enum Kind : std::uint8_t { kBegin, kLaunch, kCall, kLooseOp, kEnd } kind;
  std::int64_t time_ps;
  std::uint32_t index;  // execution, allocator event or device op
};

class ProgramEmitter {
 public:
  ProgramEmitter(const Profile& p, bool autotune_scratch, const LoadLimits& limits)
      : p_(p), u_(map_usage(p)), autotune_scratch_(autotune_scratch), builder_(streams(), limits.max_ops) {}

  Program emit() {
    std::vector<Item> items = schedule();
    std::int64_t now = items.empty() ? 0 : items.front().time_ps;
    for (const Item& it : items) {
      if (it.time_ps > now) {
        builder_.host_gap(double(it.time_ps - now) / 1000.0);
        now = it.time_ps;
      }
      switch (it.kind) {
        case Item::kBegin:
          push_simple(HostOpKind::BeginExecution);
          break;
        case Item::kLaunch:
          launch(it.index);
          break;
        case Item::kCall:
          call(it.index);
          break;
        case Item::kLooseOp:
          loose_op(it.index);
          break;
        case Item::kEnd:
          push_simple(HostOpKind::EndExecution);
          break;
      }
    }
    return builder_.take();
  }

  std::size_t dropped_uses() const { return dropped_uses_; }

 private:
  // Program stream 0 is the profile's compute stream; every other profile stream with ops follows
  // in profile order, under its profile name.
  std::vector<StreamSpec> streams() {
    std::vector<StreamSpec> out{{"compute", true}};
    stream_of_.assign(p_.streams.size(), 0);
    std::vector<bool> used(p_.streams.size(), false);
    for (const DeviceOp& op : p_.device_ops) used[op.stream] = true;
    for (std::uint32_t s = 0; s < p_.streams.size(); ++s) {
      if (s == u_.compute_stream || !used[s]) continue;
      stream_of_[s] = StreamId(out.size());
      out.push_back({p_.streams[s], false});
    }
    return out;
  }

  std::vector<Item> schedule() {
    std::vector<Item> items;
    users_.assign(p_.executes.size(), {});
    for (std::uint32_t b = 0; b < u_.buffers.size(); ++b)
      if (u_.buffers[b].alloc_role != ThreadRole::kCompile)
        for (std::uint32_t e : u_.buffers[b].executions) users_[e].push_back(b);
    launched_.assign(p_.executes.size(), false);
    for (const UsedBuffer& buf : u_.buffers)
      if (autotune_scratch_ && buf.alloc_role == ThreadRole::kCompile && buf.free_event &&
          buf.free_role == ThreadRole::kCompile)
        for (std::uint32_t o : last_op_per_stream(buf)) queried_ops_.insert(o);
    for (std::uint32_t e = 0; e < p_.executes.size(); ++e) {
      const ExecuteSpan& x = p_.executes[e];
      const std::int64_t end =
          x.start_ps + std::max<std::int64_t>(x.duration_ps, 0);  // a span never ends before it starts
      std::int64_t launch = end;
      for (std::uint32_t b : users_[e])
        if (u_.buffers[b].free_ps > x.start_ps && u_.buffers[b].free_ps < launch)
          launch = u_.buffers[b].free_ps;
      items.push_back({Item::kBegin, x.start_ps, e});
      items.push_back({Item::kLaunch, launch, e});
      items.push_back({Item::kEnd, end, e});
    }
    for (std::uint32_t i = 0; i < p_.events.size(); ++i)
      if (autotune_scratch_ || u_.buffers[u_.event_buffer[i]].alloc_role != ThreadRole::kCompile)
        items.push_back({Item::kCall, p_.events[i].time_ps, i});
    for (std::uint32_t o = 0; o < p_.device_ops.size(); ++o)
      if (u_.op_execution[o] < 0) items.push_back({Item::kLooseOp, p_.device_ops[o].start_ps, o});
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      return a.time_ps != b.time_ps ? a.time_ps < b.time_ps : a.kind < b.kind;
    });
    return items;
  }

  static std::string buffer_name(std::uint32_t b) { return "b" + std::to_string(b); }
  static std::string exec_event(std::uint32_t e) { return "x" + std::to_string(e); }
  static std::string op_event(std::uint32_t o) { return "o" + std::to_string(o); }

  // A compile-thread buffer's last op on each stream it used, by stream.
  std::vector<std::uint32_t> last_op_per_stream(const UsedBuffer& buf) const {
    std::map<std::uint32_t, std::uint32_t> last;                        // profile stream -> op
    for (std::uint32_t o : buf.ops) last[p_.device_ops[o].stream] = o;  // ops are by start
    std::vector<std::uint32_t> out;
    for (const auto& [stream, o] : last) out.push_back(o);
    return out;
  }

  void push_simple(HostOpKind kind) {
    HostOp op;
    op.kind = kind;
    builder_.push(std::move(op));
  }

  StreamId program_stream(std::uint32_t o) const {
    const std::uint32_t s = p_.device_ops[o].stream;
    return s == u_.compute_stream ? 0 : stream_of_[s];
  }

  HostOp device_op(std::uint32_t o) const {
    const DeviceOp& d = p_.device_ops[o];
    const std::string& name = p_.op_names[d.name];
    HostOp op;
    op.kind = name.starts_with("Memset")                 ? HostOpKind::Memset
              : name.find("Memcpy") != std::string::npos ? HostOpKind::Copy
                                                         : HostOpKind::Kernel;
    op.stream = program_stream(o);
    op.duration = Duration::fixed(std::round(double(std::max<std::int64_t>(d.duration_ps, 0)) / 1000.0));
    return op;
  }

  void launch(std::uint32_t e) {
    const std::vector<std::uint32_t>& ops = u_.execution_ops[e];
    std::vector<BufferAccess> live;
    for (std::uint32_t b : users_[e]) {
      if (live_.count(b))
        live.push_back(builder_.access(buffer_name(b), 0, 0));
      else if (!ops.empty() && !released_.count(b))
        ++dropped_uses_;  // allocated inside the span after the launch point
    }
    for (std::size_t k = 0; k < ops.size(); ++k) {
      HostOp op = device_op(ops[k]);
      if (k == 0) (op.kind == HostOpKind::Memset ? op.writes : op.reads) = live;
      if (k + 1 == ops.size()) op.writes = live;
      builder_.push(std::move(op));
    }
    builder_.record(exec_event(e), 0, 0);
    launched_[e] = true;
  }

  void call(std::uint32_t i) {
    const AllocatorEvent& ev = p_.events[i];
    const std::uint32_t b = u_.event_buffer[i];
    const UsedBuffer& buf = u_.buffers[b];
    if (ev.kind == AllocatorEvent::Kind::kAlloc) {
      // Autotuner scratch is allocated for the first stream other than compute it is used on: the
      // engine treats a non-compute allocation as that stream's own scratch, which upstream hands
      // back to the allocator directly (the autotuner's ScratchAllocator / OwningDeviceMemory; no
      // PjRt buffer, no ThenRelease hold for its other-stream uses). Scratch whose first op runs on
      // compute but which other streams use too (cnn: candidates on #14 and on #32/#33) would
      // otherwise be a compute allocation touched by other streams, which `immediate` frees from a
      // callback, not where the real allocator freed it. Scratch used on compute only, or by no op,
      // stays on compute: its uses are in stream order (or none), and no guard should charge it.
      StreamId stream = 0;
      if (buf.alloc_role == ThreadRole::kCompile)
        for (std::uint32_t o : buf.ops)
          if (const StreamId s = program_stream(o); s != 0) {
            stream = s;
            break;
          }
      builder_.alloc(buffer_name(b), stream, ev.requested_bytes, 0);
      live_.insert(b);
      return;
    }
    if (buf.alloc_role == ThreadRole::kCompile && buf.free_role == ThreadRole::kCompile) {
      // The autotuner waits for its candidates before freeing their scratch: wait for the event
      // after the buffer's last op on each stream it used. The replay's device can run behind the
      // real one; a poll there would free scratch its own kernels still use. The price: the one
      // host thread stalls where only the compile thread waited (host stall, the same under every
      // policy).
      for (std::uint32_t o : last_op_per_stream(buf)) {
        HostOp q;
        q.kind = HostOpKind::EventSync;
        q.event = builder_.recorded_event(op_event(o));
        builder_.push(std::move(q));
      }
    }
    if (buf.free_role == ThreadRole::kCallback) {
      // The callback ran once the device passed the buffer's last use: query that execution's event.
      for (auto e = buf.executions.rbegin(); e != buf.executions.rend(); ++e) {
        if (!launched_[*e]) continue;
        HostOp q;
        q.kind = HostOpKind::EventQuery;
        q.event = builder_.recorded_event(exec_event(*e));
        builder_.push(std::move(q));
        break;
      }
    }
    builder_.release(buffer_name(b), 0);
    live_.erase(b);
    released_.insert(b);
  }

  void loose_op(std::uint32_t o) {
    HostOp op = device_op(o);
    for (std::uint32_t b : users_of_loose(o)) op.writes.push_back(builder_.access(buffer_name(b), 0, 0));
    if (op.kind != HostOpKind::Memset) op.reads = op.writes;
    const StreamId stream = op.stream;
    builder_.push(std::move(op));
    if (queried_ops_.count(o)) builder_.record(op_event(o), stream, 0);
  }

  // Live compile-thread buffers that use loose op `o` (few are live at once: scan them).
  std::vector<std::uint32_t> users_of_loose(std::uint32_t o) const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t b : live_) {
      const UsedBuffer& buf = u_.buffers[b];
      if (buf.alloc_role == ThreadRole::kCompile && std::binary_search(buf.ops.begin(), buf.ops.end(), o))
        out.push_back(b);
    }
    return out;
  }

  const Profile& p_;
  Usage u_;
  bool autotune_scratch_;            // false: the compile threads' allocations are left out
  std::vector<StreamId> stream_of_;  // profile stream -> program stream
  ProgramBuilder builder_;
  std::vector<std::vector<std::uint32_t>> users_;  // execution -> non-compile buffers it uses
  std::vector<bool> launched_;
  std::set<std::uint32_t> live_, released_;
  std::set<std::uint32_t> queried_ops_;  // loose ops a compile-thread free waits for
  std::size_t dropped_uses_ = 0;
};

}  // namespace

bool looks_like_profile(const std::string& path) {
  if (ends_with(path, ".xplane.pb") || ends_with(path, ".xplane.pb.gz")) return true;
  std::error_code ec;
  return std::filesystem::is_directory(std::filesystem::path(path) / "plugins" / "profile", ec);
}

Scenario profile_scenario(const Profile& profile, const Params& overrides, const LoadLimits& limits) {
  scenario_detail::check_set_keys(overrides, {std::string(kAutotuneScratchKey)});
  const double scratch = overrides.get(std::string(kAutotuneScratchKey), 1);
  if (scratch != 0 && scratch != 1)
    throw ScenarioError("--set", 0, 0, std::string(kAutotuneScratchKey) + " must be 0 or 1");
  Scenario s;
  std::string stem = std::filesystem::path(profile.source).filename().string();
  for (std::string_view ext : {".gz", ".pb", ".xplane"})
    if (ends_with(stem, ext)) stem.resize(stem.size() - ext.size());
  s.name = "xla:" + stem;
  const InferredOptions inferred = infer_options(profile);
  s.device.memory_limit = inferred.options.memory_limit;
  s.device.allow_growth = inferred.options.allow_growth;
  ProgramEmitter emitter(profile, scratch == 1, limits);
  try {
    s.program = emitter.emit();
  } catch (const BuildError& e) {
    throw ScenarioError(profile.source, 0, 0, e.what());
  }
  s.description = "JAX/XLA profile replay of " + stem + " (" + std::to_string(profile.allocs) + " allocs, " +
                  std::to_string(profile.frees) + " frees, " + std::to_string(profile.executes.size()) +
                  " executions, " + std::to_string(profile.device_ops.size()) + " device ops, " +
                  std::to_string(s.program.streams.size()) + " streams; " +
                  std::to_string(emitter.dropped_uses()) +
                  " buffer uses dropped: allocated after their execution launched)";
  s.params.set(std::string(kAutotuneScratchKey), scratch);
  scenario_detail::apply_common_overrides(s, overrides);
  return s;
}

Scenario load_xla_profile(const std::string& path, const Params& overrides, const LoadLimits& limits) {
  try {
    return profile_scenario(read_profile(path), overrides, limits);
  } catch (const ProfileError& e) {
    // what() is "SOURCE: message"; the ScenarioError adds the path itself.
    std::string message = e.what();
    if (const auto colon = message.find(": "); colon != std::string::npos) message.erase(0, colon + 2);
    throw ScenarioError(path, 0, 0, message);
  }
}

}  // namespace allocsim::xla
