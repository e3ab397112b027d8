// Hazard analysis of a profile (model in xla_hazards.h).
#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "allocsim/scenarios/xla_hazards.h"

namespace allocsim::xla {
namespace {

std::int64_t end_of(const DeviceOp& op) { return op.start_ps + op.duration_ps; }

// The last owner of each freed byte range: [begin, end) -> buffer, non-overlapping.
class OwnerMap {
 public:
  struct Span {
    Addr end;
    std::uint32_t buffer;
  };

  void assign(Addr begin, Addr end, std::uint32_t buffer) {
    cut(begin);
    cut(end);
    spans_.erase(spans_.lower_bound(begin), spans_.lower_bound(end));
    spans_[begin] = {end, buffer};
  }

  // (owner, overlap begin, overlap end) for every span meeting [begin, end), by address.
  std::vector<std::tuple<std::uint32_t, Addr, Addr>> overlapping(Addr begin, Addr end) const {
    std::vector<std::tuple<std::uint32_t, Addr, Addr>> out;
    auto it = spans_.upper_bound(begin);
    if (it != spans_.begin()) --it;
    for (; it != spans_.end() && it->first < end; ++it)
      if (it->second.end > begin)
        out.emplace_back(it->second.buffer, std::max(begin, it->first), std::min(end, it->second.end));
    return out;
  }

 private:
  void cut(Addr at) {  // split the span containing `at` so one starts there
    auto it = spans_.upper_bound(at);
    if (it == spans_.begin()) return;
    --it;
    if (it->first < at && it->second.end > at) {
      spans_[at] = it->second;
      it->second.end = at;
    }
  }
  std::map<Addr, Span> spans_;
};

std::size_t compile_allocations(const Usage& u) {
  return std::size_t(std::count_if(u.buffers.begin(), u.buffers.end(),
                                   [](const UsedBuffer& b) { return b.alloc_role == ThreadRole::kCompile; }));
}

std::string micros(std::int64_t ps) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", double(ps) / 1e6);
  return buf;
}

std::string hex(Addr a) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
  return buf;
}

}  // namespace

std::size_t HazardReport::manifest() const {
  return std::size_t(
      std::count_if(hazards.begin(), hazards.end(), [](const Hazard& h) { return h.manifest; }));
}

HazardReport find_hazards(const Profile& p, const Usage& u) {
  HazardReport r;
  OwnerMap owners;
  for (std::size_t i = 0; i < p.events.size(); ++i) {
    const std::uint32_t a = u.event_buffer[i];
    const UsedBuffer& A = u.buffers[a];
    if (p.events[i].kind == AllocatorEvent::Kind::kFree) {
      owners.assign(A.addr, A.addr + A.bytes, a);
      continue;
    }
    std::map<std::uint32_t, std::pair<Addr, Addr>> met;  // owner -> the bytes A shares with it
    for (const auto& [b, lo, hi] : owners.overlapping(A.addr, A.addr + A.bytes)) {
      auto [it, added] = met.try_emplace(b, lo, hi);
      if (!added) it->second = {std::min(it->second.first, lo), std::max(it->second.second, hi)};
    }
    for (const auto& [b, range] : met) {
      const UsedBuffer& B = u.buffers[b];
      if (B.free_role == ThreadRole::kCallback) continue;
      std::set<std::uint32_t> busy_streams;
      std::optional<std::uint32_t> last;
      for (std::uint32_t o : B.ops) {
        if (end_of(p.device_ops[o]) <= B.free_ps) continue;
        busy_streams.insert(p.device_ops[o].stream);
        if (!last || end_of(p.device_ops[o]) > end_of(p.device_ops[*last])) last = o;
      }
      if (!last) continue;
      ++r.in_flight_reuses;
      if (A.ops.empty()) {
        ++r.unused;
        continue;
      }
      const auto use = std::find_if(A.ops.begin(), A.ops.end(), [&](std::uint32_t o) {
        return !busy_streams.count(p.device_ops[o].stream);
      });
      if (use == A.ops.end()) {
        ++r.stream_ordered;
        continue;
      }
      r.hazards.push_back({a, b, range.first, range.second, *last, *use,
                           p.device_ops[*use].start_ps < end_of(p.device_ops[*last])});
    }
  }
  return r;
}

std::string format_hazards(const Profile& p, const Usage& u, const HazardReport& r) {
  std::ostringstream o;
  o << "profile: " << p.source << " (allocator " << p.allocator << ")\n";
  o << "allocations: " << u.buffers.size() << " (" << compile_allocations(u)
    << " by compile threads); executions: " << p.executes.size() << "; device ops: " << p.device_ops.size()
    << "\n";
  o << "reuses of bytes freed while device work could still use them: " << r.in_flight_reuses << "\n";
  o << "  ordered by the stream (new owner's work on the same streams): " << r.stream_ordered << "\n";
  o << "  new owner without device work: " << r.unused << "\n";
  o << "  hazards (new owner's work on another stream): " << r.hazards.size() << " (manifest " << r.manifest()
    << ", latent " << r.latent() << ")\n";
  o << "times: microseconds from the profile's start\n";
  for (const Hazard& h : r.hazards) {
    const UsedBuffer& A = u.buffers[h.buffer];
    const UsedBuffer& B = u.buffers[h.owner];
    const DeviceOp& last = p.device_ops[h.owner_op];
    const DeviceOp& use = p.device_ops[h.use_op];
    o << "\n"
      << (h.manifest ? "manifest" : "latent") << ": allocation #" << h.buffer << " (event " << A.alloc_event
      << ", " << role_name(A.alloc_role) << " thread, " << A.bytes << " bytes at " << hex(A.addr)
      << ", t=" << micros(A.alloc_ps) << ")\n";
    o << "  bytes " << hex(h.overlap_begin) << ".." << hex(h.overlap_end) << " of allocation #" << h.owner
      << " (" << role_name(B.alloc_role) << " thread, freed by the " << role_name(B.free_role)
      << " thread at t=" << micros(B.free_ps) << ")\n";
    o << "  owner's work still in flight: " << p.op_names[last.name] << " on " << p.streams[last.stream]
      << " [" << micros(last.start_ps) << ", " << micros(end_of(last)) << "]\n";
    o << "  new owner's first unordered use: " << p.op_names[use.name] << " on " << p.streams[use.stream]
      << " [" << micros(use.start_ps) << ", " << micros(end_of(use)) << "]\n";
    o << "  window: freed at " << micros(B.free_ps) << ", in flight until " << micros(end_of(last)) << "; "
      << (h.manifest ? "the use overlaps it by " + micros(end_of(last) - use.start_ps)
                     : "the use starts " + micros(use.start_ps - end_of(last)) + " after it")
      << "\n";
  }
  return o.str();
}

std::string hazards_json(const Profile& p, const Usage& u, const HazardReport& r) {
  namespace json = boost::json;
  json::array list;
  for (const Hazard& h : r.hazards) {
    const UsedBuffer& A = u.buffers[h.buffer];
    const UsedBuffer& B = u.buffers[h.owner];
    const DeviceOp& last = p.device_ops[h.owner_op];
    const DeviceOp& use = p.device_ops[h.use_op];
    list.push_back(json::object{
        {"kind", h.manifest ? "manifest" : "latent"},
        {"allocation",
         {{"index", h.buffer},
          {"event", A.alloc_event},
          {"thread", role_name(A.alloc_role)},
          {"addr", A.addr},
          {"bytes", A.bytes},
          {"time_ps", A.alloc_ps}}},
        {"owner",
         {{"index", h.owner},
          {"alloc_thread", role_name(B.alloc_role)},
          {"free_thread", role_name(B.free_role)},
          {"free_ps", B.free_ps}}},
        {"overlap", {{"begin", h.overlap_begin}, {"end", h.overlap_end}}},
        {"owner_work",
         {{"op", p.op_names[last.name]},
          {"stream", p.streams[last.stream]},
          {"start_ps", last.start_ps},
          {"end_ps", end_of(last)}}},
        {"use",
         {{"op", p.op_names[use.name]},
          {"stream", p.streams[use.stream]},
          {"start_ps", use.start_ps},
          {"end_ps", end_of(use)}}},
    });
  }
  json::object doc{{"profile", p.source},
                   {"allocator", p.allocator},
                   {"allocations", u.buffers.size()},
                   {"compile_allocations", compile_allocations(u)},
                   {"executions", p.executes.size()},
                   {"device_ops", p.device_ops.size()},
                   {"in_flight_reuses", r.in_flight_reuses},
                   {"stream_ordered", r.stream_ordered},
                   {"unused", r.unused},
                   {"manifest", r.manifest()},
                   {"latent", r.latent()},
                   {"hazards", std::move(list)}};
  return json::serialize(doc) + "\n";
}

}  // namespace allocsim::xla
