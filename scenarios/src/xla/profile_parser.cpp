// XSpace bytes -> xla::Profile (model in xla_profile.h, field numbers in xplane.proto).
//
// One pass over every plane: events are recognised by their metadata name, looked up once per
// plane (a plane interns names, events carry ids), and the allocator's stats by their
// stat-metadata name, also resolved once per plane. Everything the reader keeps is validated
// here, so the check and later consumers never see a half-formed event.
#include <algorithm>
#include <array>
#include <climits>
#include <optional>
#include <set>
#include <unordered_map>

#include "allocsim/scenarios/xla_profile.h"
#include "xplane.pb.h"

namespace allocsim::xla {
namespace {

namespace pb = allocsim::xplane;

// Names TSL gives the events and stats the reader uses (tsl::BFCAllocator::AddTraceMe, PjRt).
constexpr std::string_view kAllocEvent = "MemoryAllocation";
constexpr std::string_view kFreeEvent = "MemoryDeallocation";
// The host span of one execution; the program's name follows in parentheses.
constexpr std::string_view kExecutePrefix = "CommonPjRtLoadedExecutable::Execute (";
constexpr std::string_view kHostPlanePrefix = "/host:";
constexpr std::string_view kStreamLinePrefix = "Stream #";
// The stat naming the XLA program (HLO module) whose thunk launched a device op.
constexpr std::string_view kModuleStat = "hlo_module";

enum class StatField : std::uint8_t {
  kAllocatorName,
  kAddr,
  kRequested,
  kAllocation,
  kAllocated,
  kPeak,
  kAvailable,
  kCount
};
constexpr std::array<std::string_view, std::size_t(StatField::kCount)> kStatNames = {
    "allocator_name",    "addr",           "requested_bytes", "allocation_bytes", "bytes_allocated",
    "peak_bytes_in_use", "bytes_available"};

enum class EventClass : std::uint8_t { kAlloc, kFree, kExecute };

struct PlaneIndex {
  std::unordered_map<std::int64_t, EventClass> events;  // only the event names the reader uses
  std::unordered_map<std::int64_t, StatField> stats;    // only the stat names the reader uses
};

PlaneIndex index_plane(const pb::XPlane& plane) {
  PlaneIndex ix;
  for (const auto& [id, md] : plane.event_metadata()) {
    const std::string& name = md.name();
    if (name == kAllocEvent)
      ix.events.emplace(id, EventClass::kAlloc);
    else if (name == kFreeEvent)
      ix.events.emplace(id, EventClass::kFree);
    else if (name.starts_with(kExecutePrefix))
      ix.events.emplace(id, EventClass::kExecute);
  }
  for (const auto& [id, md] : plane.stat_metadata())
    for (std::size_t f = 0; f < kStatNames.size(); ++f)
      if (md.name() == kStatNames[f]) ix.stats.emplace(id, StatField(f));
  return ix;
}

// "Execute (jit_step)" -> "jit_step" (the whole suffix if the closing parenthesis is missing).
std::string program_of(std::string_view name) {
  name.remove_prefix(kExecutePrefix.size());
  if (name.ends_with(')')) name.remove_suffix(1);
  return std::string(name);
}

class Parser {
 public:
  Parser(const std::string& source, std::string_view allocator) : source_(source), allocator_(allocator) {}

  Profile parse(std::string_view bytes) {
    if (bytes.size() > std::size_t(INT_MAX)) fail("file is larger than protobuf's 2 GiB message limit");
    pb::XSpace space;
    if (!space.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      fail("not an XSpace protobuf (truncated, or another format)");
    if (space.planes_size() == 0) fail("not an XSpace profile: it has no planes");

    profile_.source = source_;
    profile_.allocator = std::string(allocator_);
    profile_.origin_ns = origin_of(space);
    const std::string device_plane = device_plane_of(allocator_);
    for (const pb::XPlane& plane : space.planes()) {
      if (plane.name().starts_with(kHostPlanePrefix))
        read_host_plane(plane);
      else if (!device_plane.empty() && plane.name() == device_plane)
        read_device_plane(plane);
    }
    finish();
    return std::move(profile_);
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw ProfileError(source_, message); }

  // The earliest start of a line with events: times are kept from there, as absolute nanoseconds
  // since the epoch would overflow int64 once in picoseconds.
  static std::int64_t origin_of(const pb::XSpace& space) {
    std::optional<std::int64_t> origin;
    for (const pb::XPlane& plane : space.planes())
      for (const pb::XLine& line : plane.lines())
        if (line.events_size() > 0 && (!origin || line.timestamp_ns() < *origin))
          origin = line.timestamp_ns();
    return origin.value_or(0);
  }

  // "GPU_3_bfc" -> "/device:GPU:3": the plane with that device's streams ("" if not a GPU pool).
  static std::string device_plane_of(std::string_view allocator) {
    constexpr std::string_view kPrefix = "GPU_", kSuffix = "_bfc";
    if (!allocator.starts_with(kPrefix) || !allocator.ends_with(kSuffix) ||
        allocator.size() <= kPrefix.size() + kSuffix.size())
      return {};
    const std::string_view ordinal =
        allocator.substr(kPrefix.size(), allocator.size() - kPrefix.size() - kSuffix.size());
    if (!std::all_of(ordinal.begin(), ordinal.end(), [](char c) { return c >= '0' && c <= '9'; })) return {};
    return "/device:GPU:" + std::string(ordinal);
  }

  std::int64_t time_ps(const pb::XLine& line, const pb::XEvent& event, const char* what) const {
    std::int64_t ns, ps;
    if (__builtin_sub_overflow(line.timestamp_ns(), profile_.origin_ns, &ns) ||
        __builtin_mul_overflow(ns, std::int64_t{1000}, &ps) ||
        __builtin_add_overflow(ps, event.offset_ps(), &ps))
      fail(std::string(what) + " on line '" + line.name() + "': time out of range");
    return ps;
  }

  // A line becomes a thread once it has an event the reader keeps.
  std::uint32_t thread_of(const pb::XLine& line, std::optional<std::uint32_t>& thread) {
    if (!thread) {
      thread = static_cast<std::uint32_t>(profile_.threads.size());
      profile_.threads.push_back(line.name());
    }
    return *thread;
  }

  void read_host_plane(const pb::XPlane& plane) {
    const PlaneIndex ix = index_plane(plane);
    if (ix.events.empty()) return;
    for (const pb::XLine& line : plane.lines()) {
      std::optional<std::uint32_t> thread;
      for (const pb::XEvent& event : line.events()) {
        const auto cls = ix.events.find(event.metadata_id());
        if (cls == ix.events.end()) continue;
        if (cls->second == EventClass::kExecute) {
          if (event.data_case() != pb::XEvent::kOffsetPs) continue;  // aggregated: no place in time
          const std::string& name = plane.event_metadata().at(event.metadata_id()).name();
          profile_.executes.push_back({thread_of(line, thread), program_of(name),
                                       time_ps(line, event, "execute span"), event.duration_ps()});
          continue;
        }
        read_allocator_event(plane, ix, line, event, cls->second == EventClass::kAlloc, thread);
      }
    }
  }

  void read_allocator_event(const pb::XPlane& plane, const PlaneIndex& ix, const pb::XLine& line,
                            const pb::XEvent& event, bool is_alloc, std::optional<std::uint32_t>& thread) {
    const char* what = is_alloc ? "MemoryAllocation" : "MemoryDeallocation";
    std::array<const pb::XStat*, std::size_t(StatField::kCount)> stat{};
    for (const pb::XStat& s : event.stats()) {
      const auto f = ix.stats.find(s.metadata_id());
      if (f != ix.stats.end()) stat[std::size_t(f->second)] = &s;
    }
    const std::string name = allocator_name(plane, line, stat[std::size_t(StatField::kAllocatorName)], what);
    if (name != allocator_) {
      others_.insert(name);
      return;
    }
    if (event.data_case() != pb::XEvent::kOffsetPs)
      fail(std::string(what) + " on line '" + line.name() + "' has no timestamp (an aggregated event)");
    auto number = [&](StatField f) -> std::uint64_t {
      const pb::XStat* s = stat[std::size_t(f)];
      const std::string_view stat_name = kStatNames[std::size_t(f)];
      if (s == nullptr)
        fail(std::string(what) + " on line '" + line.name() + "' lacks stat '" + std::string(stat_name) +
             "'");
      if (s->value_case() == pb::XStat::kUint64Value) return s->uint64_value();
      if (s->value_case() == pb::XStat::kInt64Value && s->int64_value() >= 0)
        return std::uint64_t(s->int64_value());
      fail(std::string(what) + " on line '" + line.name() + "': stat '" + std::string(stat_name) +
           "' is not a non-negative integer");
    };
    AllocatorEvent e;
    e.kind = is_alloc ? AllocatorEvent::Kind::kAlloc : AllocatorEvent::Kind::kFree;
    e.addr = number(StatField::kAddr);
    e.requested_bytes = number(StatField::kRequested);
    e.allocation_bytes = number(StatField::kAllocation);
    e.bytes_allocated = number(StatField::kAllocated);
    e.peak_bytes_in_use = number(StatField::kPeak);
    e.bytes_available = number(StatField::kAvailable);
    e.time_ps = time_ps(line, event, what);
    e.thread = thread_of(line, thread);
    profile_.events.push_back(e);
  }

  std::string allocator_name(const pb::XPlane& plane, const pb::XLine& line, const pb::XStat* s,
                             const char* what) const {
    if (s != nullptr && s->value_case() == pb::XStat::kStrValue) return s->str_value();
    if (s != nullptr && s->value_case() == pb::XStat::kRefValue) {
      // A ref names a stat-metadata entry whose name is the value (TSL interns repeated strings).
      const auto key = static_cast<std::int64_t>(s->ref_value());
      const auto it = plane.stat_metadata().find(key);
      if (it != plane.stat_metadata().end()) return it->second.name();
    }
    fail(std::string(what) + " on line '" + line.name() + "' has no readable 'allocator_name' stat");
  }

  void read_device_plane(const pb::XPlane& plane) {
    std::unordered_map<std::int64_t, std::uint32_t> names;  // event metadata id -> op_names index
    std::optional<std::int64_t> module_stat;                // stat metadata id of `hlo_module`
    for (const auto& [id, md] : plane.stat_metadata())
      if (md.name() == kModuleStat) module_stat = id;
    std::unordered_map<std::string, std::uint32_t> modules;  // name -> Profile::modules index
    for (const pb::XLine& line : plane.lines()) {
      if (!line.name().starts_with(kStreamLinePrefix)) continue;
      const auto stream = static_cast<std::uint32_t>(profile_.streams.size());
      profile_.streams.push_back(line.name());
      for (const pb::XEvent& event : line.events()) {
        if (event.data_case() != pb::XEvent::kOffsetPs) continue;
        auto [it, added] = names.try_emplace(event.metadata_id(), std::uint32_t(profile_.op_names.size()));
        if (added) {
          const auto md = plane.event_metadata().find(event.metadata_id());
          profile_.op_names.push_back(md == plane.event_metadata().end() ? std::string() : md->second.name());
        }
        profile_.device_ops.push_back({stream, it->second, module_of(plane, event, module_stat, modules),
                                       time_ps(line, event, "device op"), event.duration_ps()});
      }
    }
  }

  // The program that launched a device op: its `hlo_module` stat (a string or, interned, a ref);
  // 0 when it has none (not launched by a compiled program's thunk).
  std::uint32_t module_of(const pb::XPlane& plane, const pb::XEvent& event,
                          std::optional<std::int64_t> stat_id,
                          std::unordered_map<std::string, std::uint32_t>& modules) {
    if (!stat_id) return 0;
    for (const pb::XStat& s : event.stats()) {
      if (s.metadata_id() != *stat_id) continue;
      std::string name;
      if (s.value_case() == pb::XStat::kStrValue) {
        name = s.str_value();
      } else if (s.value_case() == pb::XStat::kRefValue) {
        const auto md = plane.stat_metadata().find(static_cast<std::int64_t>(s.ref_value()));
        if (md != plane.stat_metadata().end()) name = md->second.name();
      }
      if (name.empty()) return 0;
      auto [it, added] = modules.try_emplace(name, std::uint32_t(profile_.modules.size()));
      if (added) profile_.modules.push_back(name);
      return it->second;
    }
    return 0;
  }

  void finish() {
    if (profile_.events.empty()) {
      if (others_.empty())
        fail(
            "no allocator events (MemoryAllocation / MemoryDeallocation): was the profiler started before "
            "the "
            "program's first array?");
      std::string list;
      for (const std::string& a : others_) list += (list.empty() ? "" : ", ") + a;
      fail("no events of allocator '" + profile_.allocator + "'; the profile has events of: " + list);
    }
    others_.insert(profile_.allocator);
    profile_.allocators.assign(others_.begin(), others_.end());
    // Stable: events with equal times keep plane, line and in-line order.
    std::stable_sort(profile_.events.begin(), profile_.events.end(),
                     [](const AllocatorEvent& a, const AllocatorEvent& b) { return a.time_ps < b.time_ps; });
    std::stable_sort(profile_.device_ops.begin(), profile_.device_ops.end(),
                     [](const DeviceOp& a, const DeviceOp& b) { return a.start_ps < b.start_ps; });
    std::stable_sort(profile_.executes.begin(), profile_.executes.end(),
                     [](const ExecuteSpan& a, const ExecuteSpan& b) { return a.start_ps < b.start_ps; });
    for (const AllocatorEvent& e : profile_.events)
      (e.kind == AllocatorEvent::Kind::kAlloc ? profile_.allocs : profile_.frees)++;
  }

  const std::string& source_;
  std::string_view allocator_;
  Profile profile_;
  std::set<std::string> others_;  // allocators with events other than the requested one
};

}  // namespace

Profile parse_profile(std::string_view xspace_bytes, const std::string& source, std::string_view allocator) {
  return Parser(source, allocator).parse(xspace_bytes);
}

}  // namespace allocsim::xla
