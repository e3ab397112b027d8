// The sim backend's streams, their queued ops, event records and event slots (docs/design.md
// section 3): what each stream holds and what each event's latest record is. Pure state and the
// queries on it; SimDevice (sim_device_streams.cpp) advances the streams over the event queue.
//
//  - A stream is a FIFO of ops (device op, event record, event wait, callback marker). At most one
//    op is in flight (`busy`): a device op running or a marker handing its callback over.
//  - Each record_event makes a new *record*; an event slot points at its latest one. Record 0 is
//    "never recorded" and always complete (CUDA: an event never recorded counts as complete).
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "allocsim/core/device.h"

namespace allocsim {

struct StreamOp {
  enum class Kind : std::uint8_t { Device, Record, Wait, Marker };
  Kind kind = Kind::Device;
  std::uint64_t op_seq = 0;
  TimeNs ready = 0;       // enqueue time: the op cannot start earlier
  std::uint64_t rec = 0;  // Record / Wait: record id; Marker: callback id
  DeviceOp dev;           // Device
  std::uint64_t step = 0; // Device: its index among the stream's device ops (docs/explore.md)
  HostFn fn;              // Marker
  std::string what;       // Marker
};

struct SimStream {
  std::string name;
  std::deque<StreamOp> ops;
  bool busy = false;         // a device op or a marker hand-off is in flight
  bool try_pending = false;  // a stream-try event is queued (at try_at)
  TimeNs try_at = 0;
  TimeNs wait_since = 0;          // when the head wait started blocking
  std::uint64_t waiting_rec = 0;  // blocked at a wait on this record
  TimeNs op_start = 0;
  bool writes_emitted = false;    // the running device op's writes are done (SimDevice::op_writes)
  // The running device op's reads still to come, in time order, when its check pass sweeps them
  // (SimDevice::read_sweep); empty when they all count at one instant.
  struct SweptRead {
    TimeNs at = 0;
    BufferId alloc = -1;
    AddrRange range;
  };
  std::vector<SweptRead> swept_reads;
  std::size_t next_swept_read = 0;
  StreamId callback_stream = kNoStream;
  std::uint64_t device_ops = 0;   // device ops launched on it so far (the next one's step index)

  bool idle() const { return !busy && ops.empty(); }
};

class StreamTable {
 public:
  StreamTable() { records_.push_back(Record{kNoEvent, kNoStream, true}); }

  // ---- streams
  StreamId add(std::string name);
  std::size_t size() const { return streams_.size(); }
  SimStream& operator[](StreamId s) { return streams_[std::size_t(s)]; }
  const SimStream& operator[](StreamId s) const { return streams_[std::size_t(s)]; }
  bool valid(StreamId s) const { return s >= 0 && std::size_t(s) < streams_.size(); }
  bool idle(StreamId s) const { return streams_[std::size_t(s)].idle(); }
  bool all_idle() const;
  /// Appends an op of `kind` to `s`, numbered with the next op sequence number.
  StreamOp& push(StreamId s, StreamOp::Kind kind, TimeNs ready);

  // ---- device time: a device op (kernel / memset / copy) started or ended at `t`
  void device_op_started(TimeNs t) {
    if (running_++ == 0) busy_since_ = t;
  }
  void device_op_ended(TimeNs t) {
    if (--running_ == 0) busy_ns_ += t - busy_since_;
  }
  /// Time in [0, end] when no stream ran a device op (`end`: the run's last time).
  TimeNs device_idle(TimeNs end) const { return end - busy_ns_ - (running_ ? end - busy_since_ : 0); }

  // ---- events and records
  bool valid_event(EventId e) const {
    return e >= 0 && std::size_t(e) < events_.size() && events_[std::size_t(e)].alive;
  }
  EventId create_event();
  void destroy_event(EventId e);  // precondition: valid_event(e)
  void label_event(EventId e, std::string_view name);
  /// The event's latest record (0: never recorded). Precondition: valid_event(e).
  std::uint64_t latest(EventId e) const { return events_[std::size_t(e)].latest_rec; }
  /// A new record of `e` on `s`, now the event's latest.
  std::uint64_t new_record(EventId e, StreamId s);
  bool done(std::uint64_t rec) const { return records_[rec].done; }
  StreamId record_stream(std::uint64_t rec) const { return records_[rec].stream; }
  void set_done(std::uint64_t rec) { records_[rec].done = true; }

  // ---- diagnostics
  std::string describe_record(std::uint64_t rec) const;
  /// One line per stream that is not idle, for deadlock messages.
  void describe_blocked(std::vector<std::string>& parts) const;

 private:
  struct Record {
    EventId event = kNoEvent;
    StreamId stream = kNoStream;
    bool done = false;
  };
  struct EventSlot {
    std::uint64_t latest_rec = 0;  // 0 = never recorded
    bool alive = false;
    std::string name;
  };

  std::vector<SimStream> streams_;
  std::vector<Record> records_;  // index = record id; 0 = "never recorded" (always done)
  std::vector<EventSlot> events_;
  std::vector<EventId> free_events_;
  std::uint64_t op_seq_ = 0;
  std::uint32_t running_ = 0;  // device ops in flight, all streams
  TimeNs busy_since_ = 0;      // when running_ went from 0 to 1
  TimeNs busy_ns_ = 0;         // closed intervals with a device op in flight
};

}  // namespace allocsim
