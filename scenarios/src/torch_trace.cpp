// PyTorch snapshot replay (model in torch_trace.h and docs/scenarios.md).
//
// Two passes. Pass 1 walks the chosen device's trace in record order, pairs each `alloc` with its
// `free_requested` by address and each `free_requested` with its `free_completed`, and turns them
// into timed events (alloc, hold, release) on a monotonic clock (a running max of time_us, so a
// clock step backwards cannot reorder record order). Pass 2 sorts the events by (time, tie-break),
// gives each hold a lane stream, and emits host ops through ProgramBuilder with HostDelay gaps.
// Allocs and releases keep record order, so the program's live bytes follow the trace's requested
// bytes exactly.
//
// Why holds and nothing else on the device: a snapshot records no kernels, only what the host asked
// of the allocator and when PyTorch gave a block back. PyTorch's free() returns a block at once
// (`free_completed` is the very next entry) unless record_stream() noted a use on another stream;
// then it records an event on that stream and returns the block only when a later malloc polls the
// event as done. So a `free_completed` that is not the next entry is the trace's only evidence of
// device work on a buffer: the device was still using it after the host freed it, until at most
// that time; one that never comes means PyTorch never got the block back within the recording.
// The replay models exactly that interval as a read-only hold, and no other access: which kernels
// wrote what, and on which stream record_stream pointed at, the trace does not say, so the replay
// cannot pair conflicting accesses and its race counts are 0 by construction (docs/scenarios.md).
#include "allocsim/scenarios/torch_trace.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "file_text.h"
#include "param_keys.h"
#include "program_builder.h"

namespace allocsim {
namespace {

namespace json = boost::json;
using scenario_detail::BuildError;
using scenario_detail::ProgramBuilder;

struct TimedEvent {
  enum Kind { Alloc, Hold, Release } kind;
  double time_us;
  std::uint64_t tie;  // record-order tie-break for equal times
  std::string buffer;
  std::uint64_t bytes;
  StreamId stream;     // Alloc: the recorded stream; Hold: its lane (set in emit)
  double end_us = 0;   // Hold: when PyTorch got the block back (or the end of the trace)
};

class TraceImporter {
 public:
  TraceImporter(std::string file, const Params& overrides, const LoadLimits& limits)
      : file_(std::move(file)), params_(torch_trace_default_params()), limits_(limits) {
    std::vector<std::string> own;
    for (const auto& [key, value] : params_.all()) own.push_back(key);
    scenario_detail::check_set_keys(overrides, own);
    for (const auto& [key, value] : overrides.all())
      if (params_.has(key)) params_.set(key, value);
    overrides_ = overrides;
  }

  Scenario import(const std::string& text) {
    json::value root = parse(text);
    if (!root.is_object()) fail("top level", "expected a JSON object with 'device_traces'");
    const json::object& top = root.get_object();
    const json::value* traces = top.if_contains("device_traces");
    if (!traces || !traces->is_array()) fail("device_traces", "missing or not a list (one list of entries per device)");

    double device = params_.get("torch_device", 0);
    if (!(device >= 0) || device != std::floor(device) || device >= double(traces->get_array().size()))
      fail("device_traces", "torch_device=" + std::to_string(device) + " but the trace has " +
                                std::to_string(traces->get_array().size()) + " device(s)");
    scale_ = non_negative_param("torch_time_scale");
    const auto dev = static_cast<std::size_t>(device);
    const json::value& entries = traces->get_array()[dev];
    if (!entries.is_array()) fail("device_traces[" + std::to_string(dev) + "]", "expected a list of entries");

    Scenario s;
    s.description = "PyTorch snapshot replay";
    s.name = "torch-trace";
    s.default_policy = "stream-aware";
    s.device.memory_limit = std::uint64_t(140) << 30;  // an H200's worth; `--set memory_limit=` changes it
    s.device.allow_growth = true;
    read_metadata(top, s);
    collect(entries.get_array(), "device_traces[" + std::to_string(dev) + "]");
    if (s.reference_max_reserved == 0) s.reference_max_reserved = peak_segment_bytes_;
    if (s.reference_max_allocated == 0) s.reference_max_allocated = peak_live_bytes_;
    s.program = emit();
    for (const auto& [k, v] : params_.all()) s.params.set(k, v);
    scenario_detail::apply_common_overrides(s, overrides_);
    s.description = "PyTorch snapshot replay of " + s.name + " (" + std::to_string(allocs_) + " allocs, " +
                    std::to_string(frees_) + " frees: " + std::to_string(frees_ - completed_later_ - never_completed_) +
                    " returned at once, " + std::to_string(completed_later_) + " later, " +
                    std::to_string(never_completed_) + " never; " + std::to_string(recorded_streams_) +
                    " recorded streams)";
    s.race_caveat =
        "trace replay: the trace records no kernel accesses, so no write is modelled and race counts are "
        "0 by construction, not evidence of safety";
    return s;
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& msg) const {
    throw ScenarioError(file_, 0, 0, where + ": " + msg);
  }

  double non_negative_param(const char* key) const {
    double v = params_.get(key, 0);
    if (!(v >= 0) || v > 1e12) throw ScenarioError("--set", 0, 0, std::string(key) + " must be a number >= 0");
    return v;
  }

  json::value parse(const std::string& text) {
    json::parse_options opt;
    opt.max_depth = 64;
    json::stream_parser p({}, opt);
    boost::system::error_code ec;
    std::size_t used = p.write(text.data(), text.size(), ec);
    if (!ec) p.finish(ec);
    if (ec) {
      std::size_t line = 1, col = 1;
      for (std::size_t i = 0; i < used && i < text.size(); ++i) {
        if (text[i] == '\n') {
          ++line;
          col = 1;
        } else {
          ++col;
        }
      }
      throw ScenarioError(file_, line, col, "JSON syntax error: " + ec.message());
    }
    return p.release();
  }

  std::uint64_t uint_field(const json::object& e, const char* key, const std::string& where, bool required) const {
    const json::value* v = e.if_contains(key);
    if (!v) {
      if (required) fail(where, std::string("missing '") + key + "'");
      return 0;
    }
    if (v->is_uint64()) return v->get_uint64();
    if (v->is_int64() && v->get_int64() >= 0) return static_cast<std::uint64_t>(v->get_int64());
    fail(where, std::string("'") + key + "' must be a non-negative integer");
  }

  void read_metadata(const json::object& top, Scenario& s) {
    const json::value* meta = top.if_contains("metadata");
    if (!meta) return;
    if (!meta->is_object()) fail("metadata", "expected an object");
    const json::object& m = meta->get_object();
    s.reference_max_allocated = uint_field(m, "max_memory_allocated", "metadata", false);
    s.reference_max_reserved = uint_field(m, "max_memory_reserved", "metadata", false);
    if (const json::value* w = m.if_contains("workload"); w && w->is_string()) {
      std::string name(w->get_string());
      if (!name.empty() && name.size() < 200) s.name = "torch:" + name;
    }
  }

  StreamId stream_index(std::uint64_t raw) {
    auto it = stream_ids_.find(raw);
    if (it != stream_ids_.end()) return it->second;
    auto id = static_cast<StreamId>(stream_ids_.size());
    stream_ids_[raw] = id;
    return id;
  }

  void collect(const json::array& entries, const std::string& base) {
    // The default stream (0) is compute when it appears; otherwise the first stream seen.
    for (const auto& v : entries) {
      if (v.is_object()) {
        if (const json::value* st = v.get_object().if_contains("stream"); st && ((st->is_uint64() && st->get_uint64() == 0) || (st->is_int64() && st->get_int64() == 0))) {
          stream_index(0);
          break;
        }
      }
    }
    struct Live {
      std::string name;
      std::uint64_t bytes;
      StreamId stream;
    };
    std::map<std::uint64_t, Live> live;
    std::map<std::uint64_t, std::uint64_t> segments;
    std::map<std::uint64_t, int> incarnation;
    // A free waiting for its free_completed: its record index and the hold it may become.
    struct Awaiting {
      std::size_t entry;
      TimedEvent hold;
    };
    std::map<std::uint64_t, Awaiting> awaiting;
    auto returned_at = [&](std::map<std::uint64_t, Awaiting>::iterator it, double when) {
      it->second.hold.end_us = when;
      if (when > it->second.hold.time_us) events_.push_back(it->second.hold);
      awaiting.erase(it);
    };
    double clock = 0;
    bool clock_started = false;
    std::uint64_t live_bytes = 0, segment_bytes = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const std::string where = base + "[" + std::to_string(i) + "]";
      if (!entries[i].is_object()) fail(where, "expected an object");
      const json::object& e = entries[i].get_object();
      const json::value* action_v = e.if_contains("action");
      if (!action_v || !action_v->is_string()) fail(where, "missing 'action' (a string)");
      const std::string action(action_v->get_string());
      if (const json::value* t = e.if_contains("time_us")) {
        double tv;
        if (t->is_int64()) tv = double(t->get_int64());
        else if (t->is_uint64()) tv = double(t->get_uint64());
        else if (t->is_double()) tv = t->get_double();
        else fail(where, "'time_us' must be a number");
        if (!std::isfinite(tv)) fail(where, "'time_us' must be finite");
        if (!clock_started) {
          origin_ = tv;
          clock_started = true;
        }
        clock = std::max(clock, tv - origin_);
      }
      const std::uint64_t tie = 3 * std::uint64_t(i) + 1;  // tie - 1: a hold just before its release
      if (action == "segment_alloc" || action == "segment_free" || action == "segment_map" || action == "segment_unmap") {
        std::uint64_t addr = uint_field(e, "addr", where, true), size = uint_field(e, "size", where, true);
        if (size > scenario_detail::kMaxBufferBytes) fail(where, "size overflow: more than 2^48 bytes");
        if (action == "segment_alloc" || action == "segment_map") {
          if (!segments.count(addr)) {
            segments[addr] = size;
            segment_bytes += size;
            peak_segment_bytes_ = std::max(peak_segment_bytes_, segment_bytes);
          }
        } else if (auto it = segments.find(addr); it != segments.end()) {
          segment_bytes -= it->second;
          segments.erase(it);
        }
        continue;
      }
      if (action == "free_completed") {
        auto it = awaiting.find(uint_field(e, "addr", where, true));
        if (it == awaiting.end()) continue;  // its request was before the recording began
        if (it->second.entry + 1 == i) {
          awaiting.erase(it);  // returned inside the same free(): no use on another stream
        } else {
          ++completed_later_;
          returned_at(it, clock);
        }
        continue;
      }
      if (action != "alloc" && action != "free_requested") continue;  // snapshot, oom, ...
      std::uint64_t addr = uint_field(e, "addr", where, true);
      std::uint64_t size = uint_field(e, "size", where, action == "alloc");
      if (size > scenario_detail::kMaxBufferBytes) fail(where, "size overflow: more than 2^48 bytes");
      const json::value* st = e.if_contains("stream");
      std::uint64_t raw_stream = 0;
      if (st) {
        if (st->is_uint64()) raw_stream = st->get_uint64();
        else if (st->is_int64()) raw_stream = static_cast<std::uint64_t>(st->get_int64());
        else fail(where, "'stream' must be an integer");
      }
      if (action == "alloc") {
        if (size == 0) fail(where, "alloc of 0 bytes");
        if (live.count(addr)) fail(where, "alloc at address " + std::to_string(addr) + " which is still allocated");
        // PyTorch hands out only blocks it has got back, so a block allocated again without a
        // free_completed was back by now (the recording missed the completion).
        if (auto it = awaiting.find(addr); it != awaiting.end()) {
          ++completed_later_;
          returned_at(it, clock);
        }
        StreamId sid = stream_index(raw_stream);
        std::string name = "0x" + hex(addr);
        if (int n = incarnation[addr]++; n > 0) name += "#" + std::to_string(n);
        live[addr] = Live{name, size, sid};
        events_.push_back({TimedEvent::Alloc, clock, tie, name, size, sid});
        live_bytes += size;
        peak_live_bytes_ = std::max(peak_live_bytes_, live_bytes);
        ++allocs_;
      } else {
        auto it = live.find(addr);
        Live b;
        if (it == live.end()) {  // allocated before the recording began
          if (size == 0) fail(where, "free_requested of an address never allocated in the trace, without a 'size'");
          StreamId sid = stream_index(raw_stream);
          std::string name = "0x" + hex(addr);
          if (int n = incarnation[addr]++; n > 0) name += "#" + std::to_string(n);
          b = Live{name, size, sid};
          preexisting_.push_back({name, size});
        } else {
          b = it->second;
          live.erase(it);
          live_bytes -= b.bytes;
        }
        events_.push_back({TimedEvent::Release, clock, tie, b.name, b.bytes, b.stream});
        awaiting[addr] = Awaiting{i, {TimedEvent::Hold, clock, tie - 1, b.name, b.bytes, kNoStream}};
        ++frees_;
      }
      if (events_.size() > limits_.max_ops) fail(where, "trace has more than " + std::to_string(limits_.max_ops) + " ops");
    }
    // Frees never completed in the recording: PyTorch still had not got the block back at its end.
    never_completed_ = awaiting.size();
    while (!awaiting.empty()) returned_at(awaiting.begin(), clock);
    if (events_.size() > limits_.max_ops) fail(base, "trace has more than " + std::to_string(limits_.max_ops) + " ops");
    recorded_streams_ = stream_ids_.size();
  }

  static std::string hex(std::uint64_t v) {
    std::ostringstream o;
    o << std::hex << v;
    return o.str();
  }

  Program emit() {
    std::stable_sort(events_.begin(), events_.end(), [](const TimedEvent& x, const TimedEvent& y) {
      return x.time_us != y.time_us ? x.time_us < y.time_us : x.tie < y.tie;
    });
    std::vector<StreamSpec> streams(std::max<std::size_t>(recorded_streams_, 1));
    for (const auto& [raw, id] : stream_ids_)
      streams[static_cast<std::size_t>(id)] = {id == 0 ? "compute" : "stream" + std::to_string(id), id == 0};
    streams[0] = {"compute", true};
    // The stream record_stream() named is not in the trace, so each hold runs on a lane of its own
    // while it lasts: a lane is reused only once its previous hold has ended, so no hold waits
    // behind another and each ends when the trace says its block came back.
    std::vector<double> lane_end;
    for (auto& ev : events_) {
      if (ev.kind != TimedEvent::Hold) continue;
      std::size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > ev.time_us) ++lane;
      if (lane == lane_end.size()) {
        lane_end.push_back(0);
        streams.push_back({"held" + std::to_string(lane), false});
      }
      lane_end[lane] = ev.end_us;
      ev.stream = static_cast<StreamId>(streams.size() - lane_end.size() + lane);
    }
    ProgramBuilder b(std::move(streams), limits_.max_ops);
    try {
      for (const auto& [name, bytes] : preexisting_) b.preexisting(name, bytes);
      double now = 0;
      for (const auto& ev : events_) {
        if (ev.time_us > now) {
          b.host_gap((ev.time_us - now) * 1000.0 * scale_);
          now = ev.time_us;
        }
        switch (ev.kind) {
          case TimedEvent::Alloc: b.alloc(ev.buffer, ev.stream, ev.bytes, 0); break;
          case TimedEvent::Release: b.release(ev.buffer, 0); break;
          case TimedEvent::Hold: {
            // Read-only: the trace shows the device still had the block, not what it did with it.
            HostOp k;
            k.kind = HostOpKind::Kernel;
            k.stream = ev.stream;
            k.duration = Duration::fixed(std::round((ev.end_us - ev.time_us) * 1000.0 * scale_));
            k.reads = {b.access(ev.buffer, 0, 0)};
            b.push(std::move(k));
            break;
          }
        }
      }
    } catch (const BuildError& e) {
      fail("device_traces", e.what());
    }
    return b.take();
  }

  std::string file_;
  Params params_;
  Params overrides_;
  LoadLimits limits_;
  double scale_ = 1, origin_ = 0;
  std::map<std::uint64_t, StreamId> stream_ids_;
  std::vector<TimedEvent> events_;
  std::vector<std::pair<std::string, std::uint64_t>> preexisting_;
  std::uint64_t peak_live_bytes_ = 0, peak_segment_bytes_ = 0;
  std::size_t allocs_ = 0, frees_ = 0;
  std::size_t completed_later_ = 0, never_completed_ = 0;  // frees not returned inside free()
  std::size_t recorded_streams_ = 0;                       // stream_ids_ before the hold lanes
};

}  // namespace

Params torch_trace_default_params() {
  Params p;
  p.set("torch_device", 0);            // which device_traces entry to replay
  p.set("torch_time_scale", 1);        // multiplies recorded gaps and holds (0: no waits, holds end at once)
  return p;
}

Scenario torch_trace_from_json(const std::string& json_text, const std::string& file_label, const Params& overrides,
                               const LoadLimits& limits) {
  if (json_text.size() > limits.max_input_bytes)
    throw ScenarioError(file_label, 0, 0, "input is larger than " + std::to_string(limits.max_input_bytes) + " bytes");
  return TraceImporter(file_label, overrides, limits).import(json_text);
}

Scenario load_torch_trace(const std::string& path, const Params& overrides, const LoadLimits& limits) {
  return torch_trace_from_json(scenario_detail::read_input_file(path, limits.max_input_bytes), path, overrides, limits);
}

}  // namespace allocsim
