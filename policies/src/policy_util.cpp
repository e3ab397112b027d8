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

void ReleaseRecords::add(Backend& b, const Chunk& chunk, StreamId stream) {
  const EventId e = b.create_event();
  b.record_event(e, stream);
  max_bytes_[chunk.pool] = std::max(max_bytes_[chunk.pool], chunk.bytes);
  records_.emplace(Key{chunk.pool, chunk.addr}, Record{chunk.bytes, stream, e});
}

void ReleaseRecords::order_after(Backend& b, const BufferInfo& buf) {
  const Chunk& c = buf.chunk;
  const AddrRange mine{c.addr, c.bytes};
  const std::uint64_t reach = max_bytes_[c.pool];
  auto it = records_.lower_bound(Key{c.pool, c.addr > reach ? c.addr - reach : 0});
  while (it != records_.end() && it->first.first == c.pool && it->first.second < mine.end()) {
    const AddrRange theirs{it->first.second, it->second.bytes};
    if (!theirs.overlaps(mine)) {
      ++it;
      continue;
    }
    bool drop = theirs.begin >= mine.begin && theirs.end() <= mine.end();  // obligation passes on
    if (it->second.stream != buf.alloc_stream) {
      if (b.query_event(it->second.event))
        drop = true;  // known complete: the host (and all it enqueues later) is ordered after it
      else
        b.stream_wait(buf.alloc_stream, it->second.event);
    }
    if (drop) {
      b.destroy_event(it->second.event);
      it = records_.erase(it);
    } else {
      ++it;
    }
  }
}

void ReleaseRecords::clear(Backend& b) {
  for (auto& [key, r] : records_) b.destroy_event(r.event);
  records_.clear();
}

}  // namespace allocsim::policy_util
