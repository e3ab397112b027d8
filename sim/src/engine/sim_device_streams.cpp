// The sim backend's streams (state in stream_table.h) and callback thread (callback_thread.h):
// how a stream's head op starts and ends over the event queue, how records complete and release
// the streams and the host waiting on them, and how a callback marker hands its callback to the
// single callback thread, which runs them FIFO (callback_thread.h: wake-up and back-to-back costs)
// while the marker holds its stream.
#include <algorithm>

#include "sim_device.h"

namespace allocsim {

// ======================================================================= streams

void SimDevice::kick(StreamId s, TimeNs at) {
  SimStream& st = streams_[s];
  at = std::max(at, now_);
  if (st.try_pending && at >= st.try_at) return;
  st.try_pending = true;
  st.try_at = at;
  queue_.push(at, kStreamTry, s);
}

StreamOp& SimDevice::enqueue(StreamId s, StreamOp::Kind kind) {
  StreamOp& op = streams_.push(s, kind, agent_now());
  release(agent(), sync_key(SyncKind::EnqueuedOp, op.op_seq));
  const SimStream& st = streams_[s];
  if (!st.busy && st.waiting_rec == 0) kick(s, op.ready);
  return op;
}

void SimDevice::advance(StreamId s) {
  SimStream& st = streams_[s];
  const AgentId me = stream_agent(s);
  while (!st.busy && !st.ops.empty()) {
    StreamOp& op = st.ops.front();
    if (op.ready > now_) {
      kick(s, op.ready);
      return;
    }
    switch (op.kind) {
      case StreamOp::Kind::Device: {
        if (steps_.active() && steps_.begin(StepRef{StepAgent::Stream, s, op.step}, me, now_)) return;
        acquire(me, sync_key(SyncKind::EnqueuedOp, op.op_seq));
        if (steps_.active()) {
          steps_.touch(me, StepObject{StepObject::Kind::Stream, true, std::uint64_t(s)});  // its progress
          for (const DeviceAccess& a : op.dev.reads)
            steps_.touch(me, StepObject{StepObject::Kind::Memory, false, a.range.begin, a.range.end()});
          for (const DeviceAccess& a : op.dev.writes)
            steps_.touch(me, StepObject{StepObject::Kind::Memory, true, a.range.begin, a.range.end()});
        }
        st.busy = true;
        st.op_start = now_;
        st.writes_emitted = false;
        const DevicePhases ph = device_phases(op.dev);
        streams_.device_op_started(now_);
        read_sweep(op.dev, st.swept_reads);
        st.next_swept_read = 0;
        if (!st.swept_reads.empty()) queue_.push(now_ + st.swept_reads.front().at, kOpReads, s);
        else if (ph.reads_at == 0) op_reads(s);
        else queue_.push(now_ + ph.reads_at, kOpReads, s);
        if (ph.writes_at < ph.end) queue_.push(now_ + ph.writes_at, kOpWrites, s);
        queue_.push(now_ + ph.end, kOpEnd, s);
        return;
      }
      case StreamOp::Kind::Record: {
        acquire(me, sync_key(SyncKind::EnqueuedOp, op.op_seq));
        const std::uint64_t rec = op.rec;
        release(me, sync_key(SyncKind::Event, rec));
        const DeviceOpSpan span{op.op_seq, s, DeviceOpKind::Marker, "event-record", now_, now_, op.ready};
        emit([&](auto& o) { o.on_device_op(span); });
        st.ops.pop_front();
        complete_record(rec);
        continue;
      }
      case StreamOp::Kind::Wait: {
        if (!streams_.done(op.rec)) {
          if (st.waiting_rec != op.rec) st.wait_since = now_;
          st.waiting_rec = op.rec;
          return;
        }
        const TimeNs since = st.waiting_rec == op.rec ? st.wait_since : now_;
        st.waiting_rec = 0;
        acquire(me, sync_key(SyncKind::EnqueuedOp, op.op_seq));
        acquire(me, sync_key(SyncKind::Event, op.rec));
        const DeviceOpSpan span{op.op_seq, s, DeviceOpKind::Marker, "event-wait", since, now_, op.ready};
        emit([&](auto& o) { o.on_device_op(span); });
        st.ops.pop_front();
        continue;
      }
      case StreamOp::Kind::Marker: {
        // The marker hands its callback to the callback thread and holds its stream until the
        // callback returns: "the callback blocks later work in the stream" (CUDA
        // cudaStreamAddCallback); callback_done pops it. Through a relay (callback_relay) the
        // driver's callback only hands over: the marker leaves then and frees its slot.
        acquire(me, sync_key(SyncKind::EnqueuedOp, op.op_seq));
        release(me, sync_key(SyncKind::CallbackHandoff, op.rec));
        const bool relay = config_.platform.callback_relay != 0;
        if (relay && now_ > op.ready && config_.platform.callback_handover_ns > 0 && last_handover_ != now_) {
          // Most of callback_after_op_ns is before the hand-over (on the H200 about 79 of 100 us, calibrate's
          // kernel_end_to_handover): until then the marker holds its stream and its slot, so a
          // host at the pending-callback limit waits for it (results/hw/peak-medians). A marker
          // reached just as the driver handed one over goes with it: on the H200 two callbacks
          // queued back to back on one stream were handed over a median 5 to 12 us apart, against
          // 79 us from a kernel's end (results/hw/h200-peak-median/handover-gaps.md).
          st.busy = true;
          st.op_start = now_;
          queue_.push(now_ + cost(&PlatformProfile::callback_handover_ns), kCallbackHandover, s);
          return;
        }
        if (relay) {
          hand_to_relay(s, now_);
          continue;
        }
        const bool asleep = cb_.asleep_at(now_);
        cb_.queue.push_back(SimCallback{op.rec, s, std::move(op.fn), std::move(op.what)});
        if (asleep) {
          cb_.waking = true;
          queue_.push(now_ + wake_after_reach(op, now_), kCallbackWake, 0);
        }
        st.busy = true;
        st.op_start = now_;
        if (!asleep) callback_try();
        return;
      }
    }
  }
  if (!st.busy && st.ops.empty()) check_host_wait();
}

void SimDevice::op_reads(StreamId s) {
  const StreamOp& op = streams_[s].ops.front();
  const AgentId me = stream_agent(s);
  for (const DeviceAccess& a : op.dev.reads)
    emit([&](auto& o) { o.on_access(me, op.op_seq, a.alloc, a.range, false, now_); });
}

void SimDevice::op_swept_reads(StreamId s) {
  SimStream& st = streams_[s];
  const StreamOp& op = st.ops.front();
  const AgentId me = stream_agent(s);
  const TimeNs due = now_ - st.op_start;
  while (st.next_swept_read < st.swept_reads.size() && st.swept_reads[st.next_swept_read].at <= due) {
    const SimStream::SweptRead& r = st.swept_reads[st.next_swept_read++];
    emit([&](auto& o) { o.on_access(me, op.op_seq, r.alloc, r.range, false, now_); });
  }
  if (st.next_swept_read < st.swept_reads.size())
    queue_.push(st.op_start + st.swept_reads[st.next_swept_read].at, kOpReads, s);
}

void SimDevice::op_writes(StreamId s) {
  SimStream& st = streams_[s];
  const StreamOp& op = st.ops.front();
  const AgentId me = stream_agent(s);
  for (const DeviceAccess& a : op.dev.writes)
    emit([&](auto& o) { o.on_access(me, op.op_seq, a.alloc, a.range, true, now_); });
  st.writes_emitted = true;
}

void SimDevice::op_end(StreamId s) {
  SimStream& st = streams_[s];
  if (st.next_swept_read < st.swept_reads.size()) op_swept_reads(s);  // due by now: the check ends before the op
  st.swept_reads.clear();
  if (!st.writes_emitted) op_writes(s);
  StreamOp& op = st.ops.front();
  const DeviceOpSpan span{op.op_seq, s, op.dev.kind, op.dev.label, st.op_start, now_, op.ready};
  emit([&](auto& o) { o.on_device_op(span); });
  const std::uint64_t step = op.step;
  st.ops.pop_front();
  st.busy = false;
  streams_.device_op_ended(now_);
  if (steps_.active()) wake_held(steps_.done(StepRef{StepAgent::Stream, s, step}, stream_agent(s), now_));
  advance(s);
}

void SimDevice::complete_record(std::uint64_t rec) {
  streams_.set_done(rec);
  for (std::size_t t = 0; t < streams_.size(); ++t) {
    if (streams_[StreamId(t)].waiting_rec != rec) continue;
    kick(StreamId(t), now_);
  }
  check_host_wait();
}

// ======================================================================= callback thread

TimeNs SimDevice::wake_after_reach(const StreamOp& marker, TimeNs reached) {
  // A marker that waited behind device work is reached when that work ends, and the driver's
  // callback thread learns of it later than of one enqueued on an idle stream: on the H200, about
  // twice as long from a kernel's end (callback_after_op_ns; results/hw/h200-chain).
  const bool behind_op = reached > marker.ready && config_.platform.callback_after_op_ns > 0;
  return cost(behind_op ? &PlatformProfile::callback_after_op_ns : &PlatformProfile::callback_latency_ns);
}

void SimDevice::callback_handover(StreamId s) {
  SimStream& st = streams_[s];
  last_handover_ = now_;
  st.busy = false;
  hand_to_relay(s, st.op_start);
  advance(s);
}

void SimDevice::hand_to_relay(StreamId s, TimeNs reached) {
  SimStream& st = streams_[s];
  StreamOp& op = st.ops.front();
  const bool asleep = cb_.asleep_at(now_);
  cb_.queue.push_back(SimCallback{op.rec, kNoStream, std::move(op.fn), std::move(op.what)});
  if (asleep) {
    // calibrate times callback_after_op_ns from the kernel's end to the body, so the body of a
    // callback handed over later than that starts at its hand-over.
    cb_.waking = true;
    queue_.push(std::max(now_, reached + wake_after_reach(op, reached)), kCallbackWake, 0);
  } else if (!cb_.busy && !cb_.waking) {
    // The body runs from the event queue, not inside the stream's loop (it may enqueue).
    cb_.waking = true;
    queue_.push(now_, kCallbackWake, 0);
  }
  const DeviceOpSpan span{op.op_seq, s, DeviceOpKind::Marker, "callback-handoff", reached, now_, op.ready};
  emit([&](auto& o) { o.on_device_op(span); });
  st.ops.pop_front();
  --callbacks_pending_;
  if (host_.wait == HostWait::CallbackSlot) check_host_wait();
}

void SimDevice::callback_wake() {
  cb_.waking = false;
  callback_try();
}

void SimDevice::callback_try() {
  if (cb_.busy || cb_.waking || cb_.queue.empty()) return;
  if (steps_.active() && steps_.begin(StepRef{StepAgent::Callback, kNoStream, cb_.queue.front().id}, kCallbackAgent, now_))
    return;
  if (!callback_take_mutexes()) return;  // the next body waits for a mutex the host holds
  SimCallback cb = std::move(cb_.queue.front());
  cb_.queue.pop_front();
  cb_.busy = true;
  cb_.start = now_;
  cb_.now = now_;
  cb_.running_stream = cb.stream;
  cb_.running_id = cb.id;
  acquire(kCallbackAgent, sync_key(SyncKind::CallbackHandoff, cb.id));
  current_ = Agent::Callback;
  if (cb.fn) cb.fn(*this);
  current_ = Agent::Host;
  cb_.now += cost(&PlatformProfile::callback_run_ns);
  cb_.running = std::move(cb.what);
  ++callbacks_run_;
  queue_.push(cb_.now, kCallbackDone, 0);
}

void SimDevice::callback_done() {
  cb_.busy = false;
  cb_.last_done = now_;
  callback_release_mutexes();
  emit([&](auto& o) { o.on_callback_run(cb_.start, now_, cb_.running); });
  release(kCallbackAgent, sync_key(SyncKind::CallbackDone, cb_.running_id));
  if (steps_.active())
    wake_held(steps_.done(StepRef{StepAgent::Callback, kNoStream, cb_.running_id}, kCallbackAgent, now_));
  // Through a relay its marker left the stream at the hand-over (callback_relay).
  const StreamId s = cb_.running_stream;
  if (s == kNoStream) {
    callback_try();
    check_host_wait();
    return;
  }
  // The callback has returned: its marker leaves the stream, and what the stream runs next is
  // ordered after the callback's body.
  SimStream& st = streams_[s];
  const StreamOp& marker = st.ops.front();
  acquire(stream_agent(s), sync_key(SyncKind::CallbackDone, cb_.running_id));
  const DeviceOpSpan span{marker.op_seq, s, DeviceOpKind::Marker, "callback-marker", st.op_start, now_, marker.ready};
  emit([&](auto& o) { o.on_device_op(span); });
  st.ops.pop_front();
  st.busy = false;
  --callbacks_pending_;
  advance(s);
  callback_try();
  if (!cb_.busy || host_.wait == HostWait::CallbackSlot) check_host_wait();
}

}  // namespace allocsim
