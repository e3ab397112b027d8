// HipDevice: the Device interface (core/device.h) on a real GPU through the HIP runtime API.
// See hw_device.h for the threading model. Every HIP call is checked; every wait is bounded.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "allocsim/core/seeds.h"
#include "allocsim/engine/plan_executor.h"
#include "allocsim/hw/pattern.h"
#include "allocsim/hw/timeline.h"
#include "allocsim/hw/version_map.h"
#include "allocsim/pool/device_pools.h"
#include "allocsim/pool/memory_accounting.h"
#include "callback_relay.h"
#include "state_mutex.h"
#include "kernels.h"

namespace allocsim::hw {
namespace {

using Clock = std::chrono::steady_clock;

/// A TrialStats sample: ns, clamped to what a std::uint32_t holds (about 4.3 s).
std::uint32_t sample_ns(TimeNs ns) { return std::uint32_t(std::clamp<TimeNs>(ns, 0, 0xffffffff)); }
std::uint32_t sample_ns(Clock::duration d) {
  return sample_ns(TimeNs(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()));
}

/// The most writer counters (allocations x (allocations + 2)) kept for foreign-read sources: 32 MiB.
constexpr std::size_t kMaxSourceCounters = std::size_t(1) << 22;
/// Ops one trial's timeline can hold (HwDeviceOptions::record_timeline); later ops go unrecorded.
constexpr std::size_t kTimelineCapacity = std::size_t(1) << 16;

class HipDevice;

struct HotRange {
  Addr begin, end;
  BufferId owner;
};

/// What the HIP backend adds to a pool of the shared layer (pool/device_pools.h): the real
/// device allocation its addresses map onto, and where freed bytes are still in use on the GPU.
struct PoolState {
  std::string name;
  void* device_base = nullptr;  // pool address DevicePool::base(id) + x is device_base + x
  /// Chunks returned to this pool in this trial while a stream their allocation used was still
  /// busy ("hot"): handing such bytes to another allocation is the address reuse behind the race.
  std::deque<HotRange> hot;
};

class HipDevice final : public HwDevice {
  /// Times one backend call of the host thread (TrialStats::calls, and release_calls inside a
  /// release plan). A call made inside another timed call (the event queries of a wait) counts as
  /// the outer one; the instrumentation inside a call is not the call's.
  class CallTimer {
   public:
    CallTimer(HipDevice& d, HostCall c) : d_(d), c_(c), on_(d.on_host_thread() && !d.in_call_) {
      if (!on_) return;
      d_.in_call_ = true;
      instrument_at_start_ = d_.stats_.instrument_ns;
      t0_ = Clock::now();
    }
    ~CallTimer() {
      if (!on_) return;
      const TimeNs ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count() -
                        (d_.stats_.instrument_ns - instrument_at_start_);
      d_.stats_.call_samples[std::size_t(c_)].push_back(sample_ns(ns));
      for (auto* table : {&d_.stats_.calls, d_.release_start_ >= 0 ? &d_.stats_.release_calls : nullptr}) {
        if (!table) continue;
        CallTime& c = (*table)[std::size_t(c_)];
        ++c.calls;
        c.ns += ns;
      }
      d_.in_call_ = false;
    }
    CallTimer(const CallTimer&) = delete;
    CallTimer& operator=(const CallTimer&) = delete;

   private:
    HipDevice& d_;
    HostCall c_;
    bool on_;
    TimeNs instrument_at_start_ = 0;
    Clock::time_point t0_{};
  };

 public:
  HipDevice(const Scenario& scenario, const HwDeviceOptions& options)
      : scenario_(scenario), options_(options), params_(options.params), t0_(Clock::now()) {
    int count = 0;
    if (hipGetDeviceCount(&count) != hipSuccess || count == 0)
      throw HwError("no GPU: hipGetDeviceCount found no device (is a GPU and its driver present?)");
    ALLOCSIM_HIP_CHECK(hipSetDevice(0));
    hipDeviceProp_t prop;
    ALLOCSIM_HIP_CHECK(hipGetDeviceProperties(&prop, 0));
    description_ = std::string(prop.name) + " (" + std::to_string(prop.totalGlobalMem >> 20) + " MiB, " +
                   std::to_string(prop.multiProcessorCount) + " multiprocessors)";
    // The op kernel launches at most one wave: one block per multiprocessor of THIS device.
    int sms = 0;
    ALLOCSIM_HIP_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, 0));
    max_blocks_ = sms > 0 ? unsigned(sms) : 1u;
    for (const StreamSpec& spec : scenario.program.streams) {
      hipStream_t s;
      ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
      streams_.push_back(s);
      stream_names_.push_back(spec.name);
    }
    if (streams_.empty()) throw HwError("scenario has no streams");
    // One real device allocation per pool; pool addresses are offsets from the pool's base into it.
    make_pool(kSharedPool, "shared");
    make_pool(kPrivatePool, "private");
    new_pools();
    const std::size_t buffers = std::max<std::size_t>(1, scenario.program.buffer_names.size());
    // Two counters per allocation: [0, n) foreign words (corruption), [n, 2n) stale own words.
    ALLOCSIM_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&counters_), 2 * buffers * sizeof(unsigned long long)));
    counters_host_.assign(2 * buffers, 0);
    // Whose data each foreign read saw (TrialStats::foreign_sources): an allocations x writers
    // matrix, left out when a program has so many allocations that it would not be small.
    if (buffers * (buffers + 2) <= kMaxSourceCounters) {
      sources_host_.assign(buffers * (buffers + 2), 0);
      ALLOCSIM_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&sources_), sources_host_.size() * sizeof(unsigned long long)));
    }
    if (options_.record_timeline) {
      ALLOCSIM_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&timestamps_), kTimelineStampsPerOp * kTimelineCapacity * sizeof(unsigned long long)));
      launched_.reserve(kTimelineCapacity);
    }
    if (!options_.forced.empty()) set_up_forcing();
    // One real mutex per named host mutex of the program (Program::mutex_names): timed, so that
    // a deadlock through one ends in HwTimeout instead of a hang, as every other wait here does.
    for (std::size_t i = 0; i < scenario.program.mutex_names.size(); ++i)
      host_mutexes_.push_back(std::make_unique<std::timed_mutex>());
    host_holds_.assign(host_mutexes_.size(), false);
    host_thread_ = std::this_thread::get_id();  // before any callback runs: read-only after
  }

  ~HipDevice() override {
    // Queued HIP callbacks still point at us: drain the device first, then stop the thread once
    // its queue is empty.
    (void)hipDeviceSynchronize();
    relay_.stop();
    for (hipEvent_t e : events_)
      if (e) (void)hipEventDestroy(e);
    for (hipStream_t s : streams_) (void)hipStreamDestroy(s);
    for (auto& p : pools_)
      if (p.device_base) (void)hipFree(p.device_base);
    if (counters_) (void)hipFree(counters_);
    if (sources_) (void)hipFree(sources_);
    if (timestamps_) (void)hipFree(timestamps_);
    if (force_words_) (void)hipFree(force_words_);
    for (hipEvent_t e : force_events_)
      if (e) (void)hipEventDestroy(e);
  }

  // ---------------------------------------------------------------- trial control
  void begin_trial(std::uint64_t seed) override {
    std::lock_guard<StateMutex> lk(state_mu_);
    chooser_ = make_seeded_chooser(seeds::run_draws(seed));  // as simulate() seeds its chooser
    ++trial_index_;  // allocation tags continue across trials: old data never carries a new tag
    new_pools();
    for (auto& p : pools_) p.hot.clear();
    ALLOCSIM_HIP_CHECK(hipMemset(counters_, 0, counters_host_.size() * sizeof(unsigned long long)));
    if (sources_) ALLOCSIM_HIP_CHECK(hipMemset(sources_, 0, sources_host_.size() * sizeof(unsigned long long)));
    if (timestamps_) ALLOCSIM_HIP_CHECK(hipMemset(timestamps_, 0, kTimelineStampsPerOp * kTimelineCapacity * sizeof(unsigned long long)));
    launched_.clear();
    if (forcing_) {  // every flag down, no time-out: the synchronize below orders it before the trial
      forcing_->begin_trial();
      ALLOCSIM_HIP_CHECK(hipMemsetAsync(force_words_, 0, 2 * forcing_->delays().size() * sizeof(unsigned), streams_[0]));
    }
    ALLOCSIM_HIP_CHECK(hipDeviceSynchronize());
    versions_.assign(scenario_.program.buffer_names.size(), VersionMap{});
    chunks_.clear();
    use_masks_.clear();
    pending_alias_.clear();
    stats_ = TrialStats{};
    (void)state_mu_.take_wait_ns();
    {
      std::lock_guard<std::mutex> sl(sem_mu_);
      sem_available_ = options_.semaphore;
    }
    trial_start_ = Clock::now();
  }

  TrialStats end_trial() override {
    wait_all(deadline_from_now());
    std::lock_guard<StateMutex> lk(state_mu_);
    ALLOCSIM_HIP_CHECK(hipMemcpy(counters_host_.data(), counters_, counters_host_.size() * sizeof(unsigned long long),
                                 hipMemcpyDeviceToHost));
    const std::size_t n = counters_host_.size() / 2;
    stats_.foreign_by_alloc.assign(counters_host_.begin(), counters_host_.begin() + std::ptrdiff_t(n));
    for (std::size_t i = 0; i < n; ++i) {
      stats_.corrupted_words += counters_host_[i];
      stats_.stale_words += counters_host_[n + i];
    }
    if (sources_) {
      ALLOCSIM_HIP_CHECK(hipMemcpy(sources_host_.data(), sources_, sources_host_.size() * sizeof(unsigned long long),
                                   hipMemcpyDeviceToHost));
      for (std::size_t r = 0; r < n; ++r)
        for (std::size_t w = 0; w < n + 2; ++w)
          if (const unsigned long long words = sources_host_[r * (n + 2) + w]) {
            const int writer = w < n ? int(w) : (w == n ? ForeignSource::kZeroing : ForeignSource::kEarlierTrial);
            stats_.foreign_sources.push_back(ForeignSource{BufferId(r), writer, words});
          }
    }
    stats_.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - trial_start_).count();
    stats_.host_lock_wait_ns = state_mu_.take_wait_ns();
    if (timestamps_) {
      const std::size_t recorded = std::min(launched_.size(), kTimelineCapacity);
      std::vector<unsigned long long> stamps(kTimelineStampsPerOp * recorded, 0);
      if (recorded)
        ALLOCSIM_HIP_CHECK(hipMemcpy(stamps.data(), timestamps_, stamps.size() * sizeof(unsigned long long),
                                     hipMemcpyDeviceToHost));
      stats_.timeline = device_timeline(stamps, launched_, kTimelineNsPerTick, stats_.timeline_dropped);
    }
    if (forcing_) {
      const std::size_t n = forcing_->delays().size();
      std::vector<unsigned> timed_out(n, 0);
      ALLOCSIM_HIP_CHECK(hipMemcpy(timed_out.data(), force_words_ + n, n * sizeof(unsigned), hipMemcpyDeviceToHost));
      for (std::size_t k = 0; k < n; ++k)
        if (timed_out[k]) forcing_->set_timed_out(int(k));
      stats_.forced = forcing_->trial();
    }
    mem_->flush();
    stats_.peak_bytes_in_use = mem_->peaks().in_use.bytes;
    stats_.peak_in_use_at_ns = mem_->peaks().in_use.time + since_trial_start(t0_);  // now() counts from t0_
    for (EventId e = 0; e < EventId(events_.size()); ++e)
      if (events_[e]) destroy_event(e);
    return stats_;
  }

  std::string description() const override { return description_; }
  TimeNs host_wait_ns() const override { return stats_.calls[std::size_t(HostCall::Wait)].ns; }

  void begin_release_timing() override {
    instrument_at_release_start_ = stats_.release_instrument_ns;
    calls_at_release_start_ = release_calls_ns();
    release_start_ = now();
  }
  void end_release_timing() override {
    if (release_start_ < 0) return;
    const TimeNs spent = now() - release_start_ - (stats_.release_instrument_ns - instrument_at_release_start_);
    stats_.release_host_ns += spent;
    const TimeNs own = spent - (release_calls_ns() - calls_at_release_start_);
    stats_.release_bookkeeping_samples.push_back(sample_ns(own));
    release_start_ = -1;
  }
  void begin_host_op(std::size_t op) override {
    if (!forcing_) return;
    std::vector<int> waits;
    {
      std::lock_guard<StateMutex> lk(state_mu_);
      waits = forcing_->waits_before_host_op(op);
    }
    for (int k : waits) {
      const ForcedDelay& f = forcing_->delays()[std::size_t(k)];
      if (!forcing_->trial()[std::size_t(k)].signalled)
        throw ScheduleNotForced("not forceable on the GPU: " + describe(f.delay.hold) + " is held until " +
                                describe(f.delay.until) + ", which the host had not launched when it reached op " +
                                std::to_string(op) + " (an earlier op of that stream was skipped)");
      // Bounded like a gate: a hold whose until op never ends gives up and is recorded.
      const auto deadline = Clock::now() + std::chrono::nanoseconds(options_.gate_timeout_ns);
      for (;;) {
        const hipError_t r = hipEventQuery(force_events_[std::size_t(k)]);
        if (r == hipSuccess) break;
        if (r != hipErrorNotReady) ALLOCSIM_HIP_CHECK(r);
        if (Clock::now() > deadline) {
          std::lock_guard<StateMutex> lk(state_mu_);
          forcing_->set_timed_out(k);
          break;
        }
      }
    }
  }
  void end_host_op(std::size_t op) override {
    if (!forcing_) return;
    std::lock_guard<StateMutex> lk(state_mu_);
    for (int k : forcing_->signals_after_host_op(op)) ALLOCSIM_HIP_CHECK(launch_signal(force_flag(k), stream(signal_stream_)));
  }

  TimeNs release_calls_ns() const {
    TimeNs sum = 0;
    for (const CallTime& c : stats_.release_calls) sum += c.ns;
    return sum;
  }

  // ---------------------------------------------------------------- plan executor
  void execute(Plan plan) override {
    PlanExecutor todo;
    todo.append(std::move(plan));
    while (!todo.empty()) {
      std::optional<Step> wait;
      {
        std::lock_guard<StateMutex> lk(state_mu_);
        wait = todo.next(*this);
      }
      if (!wait) continue;
      const Step& step = *wait;
      if (step.kind == Step::Kind::Do) continue;  // already run by todo.next
      CallTimer timed(*this, HostCall::Wait);
      switch (step.kind) {
        case Step::Kind::Do: break;
        case Step::Kind::WaitEvent: wait_event(step.event); break;
        case Step::Kind::WaitStream: wait_stream(step.stream); break;
        case Step::Kind::WaitAll: wait_all(deadline_from_now()); break;
        case Step::Kind::WaitPoolFree: wait_pool_free(step.deadline); break;
        case Step::Kind::AcquireSemaphore: acquire_semaphore(); break;
        case Step::Kind::LockMutex: lock_mutex(step.mutex); break;
      }
    }
    // The host goes on to something else: a release this plan made without freeing is visible.
    std::lock_guard<StateMutex> lk(state_mu_);
    mem_->flush();
  }

  // ---------------------------------------------------------------- Backend
  TimeNs now() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count();
  }
  Chooser& chooser() override { return *chooser_; }
  const Params& params() const override { return params_; }
  void warn(std::string message) override {
    std::lock_guard<StateMutex> lk(state_mu_);
    warnings_.insert(std::move(message));
  }

  StreamId compute_stream() const override { return 0; }
  StreamId callback_stream(StreamId source) override {
    std::lock_guard<StateMutex> lk(state_mu_);
    auto it = callback_streams_.find(source);
    if (it != callback_streams_.end()) return it->second;
    hipStream_t s;
    ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    streams_.push_back(s);
    stream_names_.push_back("callback:" + stream_name(source));
    StreamId id = StreamId(streams_.size() - 1);
    callback_streams_[source] = id;
    return id;
  }
  EventId create_event() override {
    CallTimer timed(*this, HostCall::EventCreate);
    std::lock_guard<StateMutex> lk(state_mu_);
    hipEvent_t e;
    ALLOCSIM_HIP_CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
    if (!free_event_ids_.empty()) {
      EventId id = free_event_ids_.back();
      free_event_ids_.pop_back();
      events_[id] = e;
      return id;
    }
    events_.push_back(e);
    return EventId(events_.size() - 1);
  }
  void destroy_event(EventId id) override {
    CallTimer timed(*this, HostCall::EventDestroy);
    std::lock_guard<StateMutex> lk(state_mu_);
    ALLOCSIM_HIP_CHECK(hipEventDestroy(event(id)));
    events_[id] = nullptr;
    free_event_ids_.push_back(id);
  }
  void record_event(EventId id, StreamId s) override {
    CallTimer timed(*this, HostCall::EventRecord);
    std::lock_guard<StateMutex> lk(state_mu_);
    ALLOCSIM_HIP_CHECK(hipEventRecord(event(id), stream(s)));
  }
  void stream_wait(StreamId s, EventId id) override {
    CallTimer timed(*this, HostCall::StreamWait);
    std::lock_guard<StateMutex> lk(state_mu_);
    ALLOCSIM_HIP_CHECK(hipStreamWaitEvent(stream(s), event(id), 0));
  }
  bool query_event(EventId id) override {
    CallTimer timed(*this, HostCall::EventQuery);
    hipEvent_t e;
    {
      std::lock_guard<StateMutex> lk(state_mu_);
      e = event(id);
    }
    hipError_t r = hipEventQuery(e);
    if (r == hipSuccess) return true;
    if (r == hipErrorNotReady) return false;
    ALLOCSIM_HIP_CHECK(r);
    return false;
  }
  bool add_host_callback(StreamId s, HostFn fn, std::string_view what) override {
    CallTimer timed(*this, HostCall::CallbackEnqueue);
    std::lock_guard<StateMutex> lk(state_mu_);
    if (chooser_ && chooser_->chance(callback_enqueue_failure(params_))) return false;
    CallbackName name;
    if (records_host_side()) name = CallbackName{std::string(what), stream_name(s)};
    if (!relay_.enqueue(stream(s), [this, fn = std::move(fn), enqueued = Clock::now(), name = std::move(name)] {
          run_callback(fn, enqueued, name);
        }))
      return false;
    ++stats_.callbacks;
    return true;
  }

  // A program callback runs on the relay's thread (callback_relay.h), which HIP's own callback
  // thread only wakes: unlike CUDA's callback, the marker does not hold its stream while the body
  // waits for a mutex. A host that waits for the stream holding the mutex is therefore not stuck
  // here as in the simulator (and in openxla/xla #6318); a host that waits for the callbacks to
  // return (device sync) or for another mutex the callback holds is, until the bounded waits end.
  bool add_program_callback(StreamId s, std::vector<MutexId> locks, TimeNs body_ns) override {
    CallTimer timed(*this, HostCall::CallbackEnqueue);
    std::lock_guard<StateMutex> lk(state_mu_);
    for (const MutexId m : locks)
      if (m < 0 || std::size_t(m) >= host_mutexes_.size()) {
        warnings_.insert("host callback taking an invalid mutex refused");
        return false;
      }
    if (chooser_ && chooser_->chance(callback_enqueue_failure(params_))) return false;
    if (!relay_.enqueue(stream(s), [this, locks = std::move(locks), body_ns] { run_program_callback(locks, body_ns); }))
      return false;
    ++stats_.callbacks;
    return true;
  }
  void mutex_unlock(MutexId m) override {
    if (m < 0 || std::size_t(m) >= host_mutexes_.size() || !host_holds_[std::size_t(m)]) {
      warn("unlock of mutex '" + mutex_name(m) + "' that the host does not hold ignored");
      return;
    }
    host_holds_[std::size_t(m)] = false;
    host_mutexes_[std::size_t(m)]->unlock();
  }

  std::optional<Chunk> pool_allocate(PoolId pool, std::uint64_t bytes) override {
    CallTimer timed(*this, HostCall::PoolAllocate);
    std::lock_guard<StateMutex> lk(state_mu_);
    PoolState& p = pool_state(pool);
    DevicePool* dp = bfc_pools_->get(pool);
    if (!dp) return std::nullopt;
    std::optional<Addr> a = dp->bfc().allocate(bytes);
    alloc_sampled_at_ = now();
    mem_->sample(alloc_sampled_at_);
    if (!a) {
      if (dp->bound_refusals())
        warnings_.insert("pool '" + p.name + "' ran past its device allocation: placement left the oracle's");
      return std::nullopt;
    }
    Chunk c{pool, *a, dp->bfc().chunk_size(*a)};
    instrumented([&] {  // does the chunk reuse bytes still in use on the GPU?
      for (const HotRange& h : p.hot)
        if (h.begin < c.addr + c.bytes && c.addr < h.end) pending_alias_[pool] = std::make_pair(c.addr, h.owner);
      return true;
    });
    return c;
  }
  void pool_free(const Chunk& chunk, BufferId buffer) override {
    CallTimer timed(*this, HostCall::PoolFree);
    {
      std::lock_guard<StateMutex> lk(state_mu_);
      PoolState& p = pool_state(chunk.pool);
      DevicePool* dp = bfc_pools_->find(chunk.pool);
      const bool alive = bfc_pools_->alive(chunk.pool);
      if (!alive) {  // its pool is gone, and the allocation's bytes with it
        mem_->on_pool_free(chunk);
        mem_->sample(now());
      }
      if (!alive || !dp || !dp->bfc().is_live(chunk.addr)) {
        ++stats_.lifetime_violations;
        warnings_.insert(alive ? "free of a chunk that is not live" : "callback freed into a destroyed pool");
        return;
      }
      dp->bfc().deallocate(chunk.addr);
      mem_->on_pool_free(chunk);
      const TimeNs freed_at = now();
      mem_->sample(freed_at);
      if (records_host_side())
        stats_.timeline_memory.push_back(TimelineMemoryEvent{freed_at + since_trial_start(t0_), buffer, false, chunk.bytes});
      if (instrumented([&] { return buffer_streams_busy(buffer); })) {
        p.hot.push_back(HotRange{chunk.addr, chunk.addr + chunk.bytes, buffer});
        if (p.hot.size() > 4096) p.hot.pop_front();
      }
      {
        std::lock_guard<std::mutex> fl(free_mu_);
        ++free_seq_;
      }
    }
    free_cv_.notify_all();
  }
  bool pool_alive(PoolId pool) const override {
    std::lock_guard<StateMutex> lk(state_mu_);
    return bfc_pools_->alive(pool);
  }
  void count_fallback() override { ++stats_.fallbacks; }

  // ---------------------------------------------------------------- Device
  void launch(StreamId s, DeviceOp op) override {
    CallTimer timed(*this, HostCall::Launch);
    std::lock_guard<StateMutex> lk(state_mu_);
    OpDescriptor d;
    d.mismatch_counters = counters_;
    d.stale_counters = counters_ + counters_host_.size() / 2;
    if (sources_) {
      d.source_counters = sources_;
      d.allocs = unsigned(counters_host_.size() / 2);
      d.tag_origin = std::uint32_t((trial_index_ * d.allocs) % kLowMask);  // tag_of_alloc(0) - 1
    }
    d.max_blocks = max_blocks_;
    d.spin_cycles = op.duration > 0 ? static_cast<long long>(double(op.duration) / options_.platform.spin_ns_per_cycle) : 0;
    for (const DeviceAccess& a : op.reads) add_read(d, a);
    const bool zeroing = op.kind == DeviceOpKind::Memset;
    for (const DeviceAccess& a : op.writes) add_write(d, a, zeroing);
    if (timestamps_) {  // the op's index in this trial's timeline; past the capacity: unrecorded
      if (launched_.size() < kTimelineCapacity) {
        d.timestamps = timestamps_;
        d.op_index = unsigned(launched_.size());
      } else {
        warnings_.insert("more than 65536 ops in one trial: later ops left out of the timeline");
      }
      LaunchedOp l{stream_name(s), op.label, op.kind};
      l.enqueued_ns = since_trial_start(Clock::now());
      for (int i = 0; i < d.num_reads; ++i) l.read_bytes += 4 * d.reads[i].count;
      for (int i = 0; i < d.num_writes; ++i) l.write_bytes += 4 * d.writes[i].count;
      launched_.push_back(std::move(l));
    }
    ScheduleForcing::AtLaunch forced;
    if (forcing_) forced = forcing_->on_launch(s);
    for (int k : forced.gates_before)
      ALLOCSIM_HIP_CHECK(launch_gate(force_flag(k), force_flag(k) + forcing_->delays().size(), gate_timeout_ticks_, stream(s)));
    ALLOCSIM_HIP_CHECK(launch_op(d, stream(s)));
    for (int k : forced.signals_after) ALLOCSIM_HIP_CHECK(launch_signal(force_flag(k), stream(s)));
    for (int k : forced.events_after) ALLOCSIM_HIP_CHECK(hipEventRecord(force_events_[std::size_t(k)], stream(s)));
  }
  void host_delay(TimeNs d) override {
    const auto until = Clock::now() + std::chrono::nanoseconds(d);
    while (Clock::now() < until) {
    }
  }
  void semaphore_release() override {
    {
      std::lock_guard<std::mutex> sl(sem_mu_);
      ++sem_available_;
    }
    sem_cv_.notify_all();
  }
  void destroy_pool(PoolId pool) override {
    std::lock_guard<StateMutex> lk(state_mu_);
    pool_state(pool);  // an unknown pool is an HwError
    bfc_pools_->destroy(pool);
    mem_->sample(now());
  }
  void note_alloc(const BufferInfo& buf) override {
    std::lock_guard<StateMutex> lk(state_mu_);
    auto pa = pending_alias_.find(buf.chunk.pool);
    if (pa != pending_alias_.end()) {
      if (pa->second.first == buf.chunk.addr && pa->second.second != buf.id) stats_.aliased = true;
      pending_alias_.erase(pa);
    }
    chunks_[buf.id] = buf.chunk;
    if (records_host_side())  // at the pool's sample, the time a peak it made is stamped with
      stats_.timeline_memory.push_back(TimelineMemoryEvent{alloc_sampled_at_ + since_trial_start(t0_), buf.id, true,
                                                           buf.chunk.bytes});
    if (buf.id >= 0 && std::size_t(buf.id) < versions_.size()) versions_[buf.id].clear();
    mem_->on_alloc(buf);
    mem_->sample(now());
  }
  void note_host_release(const BufferInfo& buf) override {
    std::lock_guard<StateMutex> lk(state_mu_);
    use_masks_[buf.id] = buf.use_stream_mask;
    ++stats_.releases;
    mem_->on_host_release(buf, now());
  }
  void note_oom(StreamId s, std::uint64_t bytes, bool scratch) override {
    (void)s, (void)bytes, (void)scratch;
    ++stats_.ooms;
  }
  void note_lifetime_violation(FindingKind kind, const BufferInfo& buf, std::string detail) override {
    (void)buf, (void)detail;
    std::lock_guard<StateMutex> lk(state_mu_);
    ++stats_.lifetime_violations;
    warnings_.insert(std::string(finding_kind_name(kind)));
  }

 private:
  // ---- helpers
  /// validate --schedule: one flag and one timed-out word per delay (flags first), an event per
  /// host hold, and the stream that signals "host op done" (not a program stream: no locator
  /// counts its kernels).
  void set_up_forcing() {
    forcing_.emplace(options_.forced, scenario_.program.streams.size());
    const std::size_t n = options_.forced.size();
    ALLOCSIM_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&force_words_), 2 * n * sizeof(unsigned)));
    force_events_.assign(n, nullptr);
    for (std::size_t k = 0; k < n; ++k) {
      if (options_.forced[k].kind == ForcedDelay::Kind::HostUntilStream)
        ALLOCSIM_HIP_CHECK(hipEventCreateWithFlags(&force_events_[k], hipEventDisableTiming));
      if (options_.forced[k].kind == ForcedDelay::Kind::StreamUntilHost && signal_stream_ == kNoStream) {
        hipStream_t st;
        ALLOCSIM_HIP_CHECK(hipStreamCreateWithFlags(&st, hipStreamNonBlocking));
        streams_.push_back(st);
        stream_names_.push_back("allocsim:signal");
        signal_stream_ = StreamId(streams_.size() - 1);
      }
    }
    gate_timeout_ticks_ = static_cast<unsigned long long>(double(options_.gate_timeout_ns) / kTimelineNsPerTick);
  }
  unsigned* force_flag(int delay) const { return force_words_ + delay; }

  /// The real allocation behind pool `id`: the bytes its bounded placement may reach.
  void make_pool(PoolId id, std::string name) {
    PoolState p;
    p.name = std::move(name);
    const std::uint64_t bytes = DevicePool::device_bytes(DevicePool::options(id, scenario_.device));
    size_t free_b = 0, total_b = 0;
    ALLOCSIM_HIP_CHECK(hipMemGetInfo(&free_b, &total_b));
    if (bytes > free_b)
      throw HwError("device out of memory: pool '" + p.name + "' needs " + std::to_string(bytes >> 20) +
                    " MiB of device memory, " + std::to_string(free_b >> 20) + " MiB free");
    hipError_t r = hipMalloc(&p.device_base, bytes);
    if (r != hipSuccess)
      throw HwError("device out of memory: hipMalloc(" + std::to_string(bytes) + ") for pool '" + p.name +
                    "' failed: " + hipGetErrorString(r));
    if (PoolId(pools_.size()) != id) throw HwError("internal: pools created out of order");
    pools_.push_back(std::move(p));
  }
  /// Fresh pools (placement and accounting of the shared layer) over the same device allocations.
  void new_pools() {
    mem_.reset();  // reads bfc_pools_: goes first
    bfc_pools_ = std::make_unique<DevicePools>(scenario_.device, /*bounded=*/true);
    mem_ = std::make_unique<MemoryAccounting>(*bfc_pools_);
  }

  PoolState& pool_state(PoolId id) {
    if (id < 0 || id >= PoolId(pools_.size())) throw HwError("unknown pool " + std::to_string(id));
    return pools_[id];
  }
  hipStream_t stream(StreamId s) const {
    if (s < 0 || s >= StreamId(streams_.size())) throw HwError("unknown stream " + std::to_string(s));
    return streams_[s];
  }
  std::string stream_name(StreamId s) const {
    return s >= 0 && s < StreamId(stream_names_.size()) ? stream_names_[s] : "?";
  }
  hipEvent_t event(EventId id) const {
    if (id < 0 || id >= EventId(events_.size()) || !events_[id])
      throw HwError("unknown or destroyed event " + std::to_string(id));
    return events_[id];
  }

  /// Where an access lands: the allocation's chunk, its device pointer and the offset inside it.
  bool locate(const DeviceAccess& a, Chunk& chunk) {
    auto it = chunks_.find(a.alloc);
    if (it == chunks_.end()) return false;
    chunk = it->second;
    return a.range.begin >= chunk.addr && a.range.end() <= chunk.addr + chunk.bytes;
  }
  KernelSegment segment(const Chunk& c, std::int32_t alloc, std::uint64_t offset, std::uint64_t bytes,
                        std::uint32_t version) {
    WordSpan w = words_in(offset, bytes);
    KernelSegment s;
    s.base = reinterpret_cast<std::uint32_t*>(static_cast<char*>(pools_[c.pool].device_base) +
                                              (c.addr - DevicePool::base(c.pool)));
    s.first_word = w.first;
    s.count = w.count;
    s.alloc = alloc;
    s.tag = tag_of_alloc(alloc);
    s.version = version;
    return s;
  }
  void add_read(OpDescriptor& d, const DeviceAccess& a) {
    Chunk c;
    if (!locate(a, c) || std::size_t(a.alloc) >= versions_.size()) return;
    const std::uint64_t offset = a.range.begin - c.addr;
    for (const VersionSegment& v : versions_[a.alloc].read(offset, a.range.bytes)) {
      if (d.num_reads == kMaxSegments) {
        warnings_.insert("an op read more than 8 pattern segments: extra segments unchecked");
        return;
      }
      d.reads[d.num_reads++] = segment(c, a.alloc, v.offset, v.bytes, v.version);
    }
  }
  void add_write(OpDescriptor& d, const DeviceAccess& a, bool zeroing) {
    Chunk c;
    if (!locate(a, c) || std::size_t(a.alloc) >= versions_.size()) return;
    if (d.num_writes == kMaxSegments) {
      warnings_.insert("an op wrote more than 8 buffers: extra writes not patterned");
      return;
    }
    const std::uint64_t offset = a.range.begin - c.addr;
    const std::uint32_t version = zeroing ? kZeroVersion : versions_[a.alloc].next_version();
    versions_[a.alloc].write(offset, a.range.bytes, version);
    d.writes[d.num_writes++] = segment(c, a.alloc, offset, a.range.bytes, version);
  }

  /// The pattern tag of allocation `alloc` in this trial: a serial that keeps counting across the
  /// trials of this device, so a word left over from an earlier trial never looks like our own.
  std::uint32_t tag_of_alloc(std::int32_t alloc) {
    const std::uint64_t n = std::max<std::size_t>(1, scenario_.program.buffer_names.size());
    const std::uint64_t serial = std::uint64_t(trial_index_) * n + std::uint64_t(alloc);
    if (serial >= kLowMask)
      warnings_.insert("more than 65535 allocations in one validate run: pattern tags repeat");
    return allocation_tag(serial);
  }

  bool on_host_thread() const { return std::this_thread::get_id() == host_thread_; }
  /// Runs the validation's own instrumentation `f` (a check); on the host thread its time is kept
  /// apart (TrialStats::instrument_ns, release_instrument_ns), not charged to a call or policy.
  template <class F>
  bool instrumented(F&& f) {
    if (!on_host_thread()) {  // a callback's: the host waits it out when it needs the state lock
      const auto t = Clock::now();
      const bool result = f();
      stats_.callback_instrument_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
      return result;
    }
    const auto t = Clock::now();
    const bool result = f();
    const TimeNs ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
    stats_.instrument_ns += ns;
    if (release_start_ >= 0) stats_.release_instrument_ns += ns;
    return result;
  }

  /// Is a stream the buffer was used on still running work? (An upper bound on "its last use
  /// may not have finished": the stream may be busy with later ops.)
  bool buffer_streams_busy(BufferId b) {
    auto it = use_masks_.find(b);
    if (it == use_masks_.end()) return false;
    for (StreamId s = 0; s < 64 && s < StreamId(streams_.size()); ++s)
      if ((it->second >> s) & 1u)
        if (!stream_idle(s)) return true;
    return false;
  }

  // ---- bounded waits
  Clock::time_point deadline_from_now() const {
    return Clock::now() + std::chrono::nanoseconds(options_.wait_timeout_ns);
  }
  [[noreturn]] void timeout(const std::string& what) const {
    throw HwTimeout("timed out after " + std::to_string(options_.wait_timeout_ns / 1000000) + " ms waiting for " + what);
  }
  void wait_event(EventId id) {
    const auto deadline = deadline_from_now();
    while (!query_event(id))
      if (Clock::now() > deadline) timeout("event " + std::to_string(id));
  }
  bool stream_idle(StreamId s) {
    hipError_t r = hipStreamQuery(stream(s));
    if (r == hipSuccess) return true;
    if (r == hipErrorNotReady) return false;
    ALLOCSIM_HIP_CHECK(r);
    return false;
  }
  void wait_stream(StreamId s) {
    const auto deadline = deadline_from_now();
    while (!stream_idle(s))
      if (Clock::now() > deadline) timeout("stream " + stream_name(s));
  }
  void wait_all(Clock::time_point deadline) {
    for (;;) {
      bool idle = true;
      std::size_t n;
      {
        std::lock_guard<StateMutex> lk(state_mu_);
        n = streams_.size();
      }
      for (StreamId s = 0; s < StreamId(n) && idle; ++s) idle = stream_idle(s);
      if (idle) {
        if (relay_.outstanding() == 0) return;
        if (relay_.wait_idle(deadline)) continue;  // callbacks may have enqueued device work
      }
      if (Clock::now() > deadline) timeout("all streams and host callbacks to drain");
    }
  }
  void wait_pool_free(TimeNs until) {
    const auto hard = deadline_from_now();
    std::unique_lock<std::mutex> fl(free_mu_);
    const std::uint64_t seen = free_seq_;
    auto deadline = hard;
    if (until != kNever) deadline = std::min(hard, t0_ + std::chrono::nanoseconds(until));
    free_cv_.wait_until(fl, deadline, [&] { return free_seq_ != seen; });
    if (free_seq_ == seen && until == kNever) timeout("memory to return to the pool");
  }
  void acquire_semaphore() {
    const auto since = Clock::now();
    {
      std::unique_lock<std::mutex> sl(sem_mu_);
      if (!sem_cv_.wait_until(sl, deadline_from_now(), [&] { return sem_available_ > 0; }))
        timeout("a compute-semaphore unit");
      --sem_available_;
    }
    // The host thread's own list (the relay's thread never touches it): no lock.
    if (records_host_side())
      stats_.timeline_semaphore_waits.push_back(TimelineSemaphoreWait{since_trial_start(since), since_trial_start(Clock::now())});
  }
  std::int64_t since_trial_start(Clock::time_point t) const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t - trial_start_).count();
  }

  // ---- host mutexes (host thread: lock_mutex; relay thread: run_program_callback)
  std::string mutex_name(MutexId m) const {
    if (m >= 0 && std::size_t(m) < scenario_.program.mutex_names.size()) return scenario_.program.mutex_names[std::size_t(m)];
    return "#" + std::to_string(m);
  }
  void lock_mutex(MutexId m) {
    if (m < 0 || std::size_t(m) >= host_mutexes_.size()) return warn("host lock of an invalid mutex ignored");
    // A std::timed_mutex locked again by its owner is undefined: report the self-deadlock instead.
    if (host_holds_[std::size_t(m)]) throw HwTimeout("host locks mutex '" + mutex_name(m) + "' that it already holds");
    if (!host_mutexes_[std::size_t(m)]->try_lock_until(deadline_from_now()))
      timeout("mutex '" + mutex_name(m) + "' (held by a host callback)");
    host_holds_[std::size_t(m)] = true;
  }
  void run_program_callback(const std::vector<MutexId>& locks, TimeNs body_ns) {
    std::vector<std::timed_mutex*> held;
    const auto deadline = deadline_from_now();
    for (const MutexId m : locks) {
      std::timed_mutex* mu = host_mutexes_[std::size_t(m)].get();
      if (std::find(held.begin(), held.end(), mu) != held.end()) continue;  // listed twice: already ours
      if (!mu->try_lock_until(deadline)) {
        for (auto it = held.rbegin(); it != held.rend(); ++it) (*it)->unlock();
        warn("host callback gave up waiting for mutex '" + mutex_name(m) + "' after " +
             std::to_string(options_.wait_timeout_ns / 1000000) + " ms (a deadlock with the host); its body was skipped");
        return;
      }
      held.push_back(mu);
    }
    host_delay(body_ns);  // the body: host time only, no backend state (so no state_mu_)
    for (auto it = held.rbegin(); it != held.rend(); ++it) (*it)->unlock();
  }

  // ---- callbacks: the relay's thread runs the policy code (callback_relay.h)
  struct CallbackName {
    std::string what, stream;  // TimelineCallback's
  };
  bool records_host_side() const { return options_.record_timeline || options_.record_callbacks; }
  void run_callback(const HostFn& fn, Clock::time_point enqueued, const CallbackName& name) {
    try {
      const auto reached = Clock::now();
      state_mu_.lock_for_callback();
      std::lock_guard<StateMutex> lk(state_mu_, std::adopt_lock);
      const auto locked = Clock::now();
      stats_.callback_lock_wait_samples.push_back(sample_ns(locked - reached));
      stats_.callback_delay_samples.push_back(sample_ns(locked - enqueued));
      stats_.callback_reach_samples.push_back(sample_ns(relay_.handed_over() - enqueued));
      stats_.callback_wake_samples.push_back(sample_ns(relay_.taken_up() - relay_.handed_over()));
      mem_->flush();  // another agent runs: a release the host made without freeing was visible
      fn(*this);
      const auto done = Clock::now();
      stats_.callback_hold_samples.push_back(sample_ns(done - locked));
      if (records_host_side())
        stats_.timeline_callbacks.push_back(TimelineCallback{since_trial_start(enqueued), since_trial_start(relay_.handed_over()),
                                                             since_trial_start(relay_.taken_up()), since_trial_start(locked),
                                                             since_trial_start(done), name.what, name.stream});
    } catch (const std::exception& e) {
      std::lock_guard<StateMutex> lk(state_mu_);
      warnings_.insert(std::string("host callback failed: ") + e.what());
    }
  }

  const Scenario& scenario_;
  HwDeviceOptions options_;
  Params params_;
  Clock::time_point t0_, trial_start_;
  std::string description_;
  std::unique_ptr<Chooser> chooser_ = make_seeded_chooser(1);

  mutable StateMutex state_mu_{options_.callbacks_first};
  std::vector<hipStream_t> streams_;
  std::vector<std::string> stream_names_;
  std::map<StreamId, StreamId> callback_streams_;
  std::vector<hipEvent_t> events_;
  std::vector<EventId> free_event_ids_;
  std::vector<PoolState> pools_;
  std::map<BufferId, Chunk> chunks_;
  std::map<BufferId, std::uint64_t> use_masks_;
  std::map<PoolId, std::pair<Addr, BufferId>> pending_alias_;  // allocation -> note_alloc hand-off
  TimeNs alloc_sampled_at_ = 0;  // the last pool_allocate's sample time (now()), for note_alloc's record
  std::vector<VersionMap> versions_;
  unsigned long long* counters_ = nullptr;
  unsigned long long* sources_ = nullptr;  // null: the program has too many allocations for it
  std::vector<unsigned long long> sources_host_;
  unsigned long long* timestamps_ = nullptr;  // record_timeline: kTimelineStampsPerOp per op, else null
  std::vector<LaunchedOp> launched_;           // record_timeline: every op launched this trial
  unsigned max_blocks_ = 1;
  std::uint64_t trial_index_ = 0;
  std::vector<unsigned long long> counters_host_;
  std::set<std::string> warnings_;
  TrialStats stats_;
  std::unique_ptr<DevicePools> bfc_pools_;
  std::unique_ptr<MemoryAccounting> mem_;
  TimeNs release_start_ = -1;  // >= 0: the host thread is inside a release plan
  TimeNs instrument_at_release_start_ = 0;
  TimeNs calls_at_release_start_ = 0;
  std::thread::id host_thread_;  // the thread that made the device and runs the plans
  bool in_call_ = false;         // host thread only: a timed call is running

  // validate --schedule (set_up_forcing); all unset when no schedule is forced.
  std::optional<ScheduleForcing> forcing_;
  unsigned* force_words_ = nullptr;      // [0, n): each delay's flag; [n, 2n): its gate timed out
  std::vector<hipEvent_t> force_events_;  // per delay: recorded after a host hold's until op
  StreamId signal_stream_ = kNoStream;    // signals of "until host op M" delays
  unsigned long long gate_timeout_ticks_ = 0;
  std::vector<std::unique_ptr<std::timed_mutex>> host_mutexes_;  // by MutexId
  std::vector<bool> host_holds_;  // host thread only: which of them the host holds

  std::mutex sem_mu_;
  std::condition_variable sem_cv_;
  int sem_available_ = 0;

  std::mutex free_mu_;
  std::condition_variable free_cv_;
  std::uint64_t free_seq_ = 0;

  CallbackRelay relay_;  // last: destroyed first, while what its callbacks touch still exists
};

}  // namespace

std::unique_ptr<HwDevice> make_hip_device(const Scenario& scenario, const HwDeviceOptions& options) {
  return std::make_unique<HipDevice>(scenario, options);
}

std::string describe_gpu() {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0)
    throw HwError("no GPU: hipGetDeviceCount found no device (is a GPU and its driver present?)");
  hipDeviceProp_t prop;
  ALLOCSIM_HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  (void)hipDriverGetVersion(&driver);
  (void)hipRuntimeGetVersion(&runtime);
  return std::string(prop.name) + ", compute capability " + std::to_string(prop.major) + "." +
         std::to_string(prop.minor) + ", " + std::to_string(prop.totalGlobalMem >> 20) + " MiB, " +
         std::to_string(prop.multiProcessorCount) + " multiprocessors, driver " + std::to_string(driver) +
         ", runtime " + std::to_string(runtime);
}

}  // namespace allocsim::hw
