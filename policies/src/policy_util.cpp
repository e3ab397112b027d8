// See policy_util.h.
#include "policy_util.h"

#include <algorithm>

namespace allocsim::policy_util {

std::vector<StreamId> use_streams(const BufferInfo& buf) {
  std::vector<StreamId> out;
  for (StreamId s = 0; s < 64; ++s)
    if (buf.use_stream_mask & (std::uint64_t(1) << s)) out.push_back(s);
  if (buf.last_use_stream != kNoStream && std::find(out.begin(), out.end(), buf.last_use_stream) == out.end()) {
    out.push_back(buf.last_use_stream);
    std::sort(out.begin(), out.end());
  }
  return out;
}

StreamId deferred_free_stream(Backend& b, const BufferInfo& buf) {
  return buf.last_use_stream != kNoStream ? buf.last_use_stream : b.compute_stream();
}

Step free_now(const Chunk& chunk, BufferId buffer) {
  return Step::run([chunk, buffer](Backend& b, Plan&) { b.pool_free(chunk, buffer); });
}

void free_after_stream(Backend& b, StreamId stream, std::vector<Parked> chunks, std::string_view who) {
  if (chunks.empty()) return;
  const std::vector<Parked> copy = chunks;  // the callback owns `chunks`; keep a copy for the fallback
  const bool enqueued = b.then_execute_callback(
      stream,
      [chunks = std::move(chunks)](Backend& cb) {
        for (const Parked& p : chunks) cb.pool_free(p.chunk, p.buffer);
      },
      who);
  if (enqueued) return;
  // The text names no buffer, so Backend::warn logs it once per run and counts the rest.
  b.count_fallback();
  b.warn(std::string(who) + ": callback enqueue failed (host callback on the callback stream of stream " +
         std::to_string(stream) + " was rejected); freed immediately");
  for (const Parked& p : copy) b.pool_free(p.chunk, p.buffer);
}

void park_after_events(const BufferInfo& buf, Plan& plan,
                       std::function<void(Backend&, const Parked&, const std::vector<StreamEvent>&)> park) {
  std::vector<StreamId> streams = use_streams(buf);
  if (streams.empty()) {
    plan.push_back(free_now(buf.chunk, buf.id));
    return;
  }
  plan.push_back(Step::run([buf, streams = std::move(streams), park = std::move(park)](Backend& b, Plan&) {
    std::vector<StreamEvent> events;
    events.reserve(streams.size());
    for (StreamId s : streams) {
      const EventId e = b.create_event();
      b.record_event(e, s);
      events.push_back({s, e});
    }
    park(b, Parked{buf.chunk, buf.id}, events);
  }));
}

}  // namespace allocsim::policy_util
