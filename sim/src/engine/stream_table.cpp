// StreamTable: streams, records and event slots (see the header).
#include "stream_table.h"

namespace allocsim {

StreamId StreamTable::add(std::string name) {
  streams_.push_back(SimStream{});
  streams_.back().name = std::move(name);
  return StreamId(streams_.size() - 1);
}

bool StreamTable::all_idle() const {
  for (const SimStream& st : streams_)
    if (!st.idle()) return false;
  return true;
}

StreamOp& StreamTable::push(StreamId s, StreamOp::Kind kind, TimeNs ready) {
  SimStream& st = streams_[std::size_t(s)];
  st.ops.emplace_back();
  StreamOp& op = st.ops.back();
  op.kind = kind;
  op.op_seq = ++op_seq_;
  op.ready = ready;
  return op;
}

EventId StreamTable::create_event() {
  EventId e;
  if (!free_events_.empty()) {
    e = free_events_.back();
    free_events_.pop_back();
  } else {
    e = EventId(events_.size());
    events_.emplace_back();
  }
  EventSlot& slot = events_[std::size_t(e)];
  slot.alive = true;
  slot.latest_rec = 0;
  slot.name.clear();
  return e;
}

void StreamTable::destroy_event(EventId e) {
  events_[std::size_t(e)].alive = false;
  free_events_.push_back(e);
}

void StreamTable::label_event(EventId e, std::string_view name) {
  if (valid_event(e)) events_[std::size_t(e)].name = name;
}

std::uint64_t StreamTable::new_record(EventId e, StreamId s) {
  const std::uint64_t rec = records_.size();
  records_.push_back(Record{e, s, false});
  events_[std::size_t(e)].latest_rec = rec;
  return rec;
}

std::string StreamTable::describe_record(std::uint64_t rec) const {
  const Record& r = records_[rec];
  std::string name = "e" + std::to_string(r.event);
  if (r.event >= 0 && std::size_t(r.event) < events_.size() && !events_[std::size_t(r.event)].name.empty())
    name = events_[std::size_t(r.event)].name;
  std::string s = "'" + name + "' (record #" + std::to_string(rec);
  if (valid(r.stream)) {
    s += " on stream '" + streams_[std::size_t(r.stream)].name + "', not reached";
    if (streams_[std::size_t(r.stream)].waiting_rec) s += ": that stream is itself blocked";
  }
  return s + ")";
}

void StreamTable::describe_blocked(std::vector<std::string>& parts) const {
  for (const SimStream& st : streams_) {
    if (st.waiting_rec)
      parts.push_back("stream '" + st.name + "': waiting for event " + describe_record(st.waiting_rec) +
                      ", " + std::to_string(st.ops.size()) + " op(s) queued");
    else if (st.busy || !st.ops.empty())
      parts.push_back("stream '" + st.name + "': " + std::to_string(st.ops.size()) + " op(s) queued");
  }
}

}  // namespace allocsim
