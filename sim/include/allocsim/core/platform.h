// Platform profile: the host/device costs the simulator charges. Defaults are the H200's, as
// results/hw/h200/calibration.json measured them (docs/design.md section 7; HIP on NVIDIA; a test
// holds the two equal); `allocsim-hw calibrate` writes a measured replacement that
// `allocsim run --platform FILE` loads (results/platform_io.h reads/writes it as JSON).
//
// kPlatformFields is the one list of the profile's fields (name, member and so unit, meaning).
// The JSON reader and writer, the `--set` keys, the YAML `platform:` section, calibration (its
// completeness check and printout) and the docs test all iterate it, so adding a cost is one
// member plus one row below (the static_assert catches a member without a row).
#pragma once
#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <string_view>

#include "allocsim/core/types.h"

namespace allocsim {

/// Each field's meaning is its row's description in kPlatformFields.
struct PlatformProfile {
  TimeNs launch_overhead_ns = 5902;
  TimeNs event_record_ns = 507;
  TimeNs event_query_ns = 866;
  TimeNs stream_wait_ns = 606;
  TimeNs event_create_ns = 724;
  TimeNs event_destroy_ns = 429;
  TimeNs callback_enqueue_ns = 4024;
  TimeNs callback_latency_ns = 45553;
  TimeNs callback_run_ns = 1663;
  // 0: profiles from before it was measured, which charged callback_latency_ns here too.
  TimeNs callback_after_op_ns = 0;
  // 0: profiles from before it was measured, whose relay took the callback at the marker's reach.
  TimeNs callback_handover_ns = 0;
  TimeNs host_alloc_ns = 391;
  TimeNs host_free_ns = 446;
  TimeNs release_bookkeeping_ns = 1497;
  TimeNs sync_wakeup_ns = 2006;
  TimeNs signal_wakeup_ns = 0;  // 0: profiles from before it was measured, which charged sync_wakeup_ns
  // 0: profiles from before it was measured (results/hw/post-wake found it in the H200's timelines).
  TimeNs wake_first_launch_ns = 0;
  // The HIP backend's validation kernels on the device, besides their spin: 0 by default, as a
  // program whose durations were measured already includes what its kernels do; a calibration
  // file sets them, so validation predicts the kernels it runs.
  TimeNs device_op_gap_ns = 0;
  TimeNs op_check_ns_per_mib = 0;
  TimeNs op_fill_ns_per_mib = 0;
  double spin_ns_per_cycle = 0.5049;
  // A count, not a duration: results/hw/h200-deferred measured 56 on two H200 hosts (CUDA 13).
  std::int64_t pending_callback_limit = 56;
  // A switch, 0 or 1: 0 is CUDA's own callback (what XLA's ThenExecuteCallback gets); calibrate
  // writes 1, as the HIP backend runs every callback through its relay thread.
  std::int64_t callback_relay = 0;
  // A switch, 0 or 1: 1, the validation kernel's check pass reads what an op reads in address
  // order over its duration (a grid-stride loop), so each word is read at its own time; 0, every
  // read counts at the pass's end (the model of calibrations before 2026-12-02). calibrate writes 1.
  std::int64_t op_check_sweep = 0;
};

/// Who spends a cost's time: the host thread (its calls, bookkeeping and wake-ups, which a run's
/// host pace scales: platform_spread.h), the callback thread, or the device.
enum class CostPayer { host, callback_thread, device };

/// One field: exactly one of `ns` (a whole number: a duration in ns, the one count,
/// pending_callback_limit, or a switch, callback_relay and op_check_sweep) and `ratio` (ns per spin
/// cycle) is set, and which one is the field's unit.
struct PlatformField {
  // Aliases, not `TimeNs PlatformProfile::*ns`: nvcc's host pass rewrites that declarator with
  // parentheses that g++ then warns about (-Wparentheses) in calibrate.hip.
  using NsMember = TimeNs PlatformProfile::*;
  using RatioMember = double PlatformProfile::*;
  const char* name;
  NsMember ns;
  RatioMember ratio;
  const char* description;
  CostPayer payer;
};

inline constexpr std::array<PlatformField, 24> kPlatformFields = {{
    {"launch_overhead_ns", &PlatformProfile::launch_overhead_ns, nullptr,
     "host time to enqueue one kernel / memset / copy", CostPayer::host},
    {"event_record_ns", &PlatformProfile::event_record_ns, nullptr,
     "host time of an event record", CostPayer::host},
    {"event_query_ns", &PlatformProfile::event_query_ns, nullptr,
     "host time of an event query", CostPayer::host},
    {"stream_wait_ns", &PlatformProfile::stream_wait_ns, nullptr,
     "host time to enqueue a stream wait", CostPayer::host},
    {"event_create_ns", &PlatformProfile::event_create_ns, nullptr,
     "host time of an event create", CostPayer::host},
    {"event_destroy_ns", &PlatformProfile::event_destroy_ns, nullptr,
     "host time of an event destroy", CostPayer::host},
    {"callback_enqueue_ns", &PlatformProfile::callback_enqueue_ns, nullptr,
     "host time of hipStreamAddCallback", CostPayer::host},
    {"callback_latency_ns", &PlatformProfile::callback_latency_ns, nullptr,
     "marker reached while the callback thread sleeps -> its callback starts (the thread's wake-up); "
     "measured on an idle stream, as the marker is enqueued", CostPayer::callback_thread},
    {"callback_after_op_ns", &PlatformProfile::callback_after_op_ns, nullptr,
     "marker reached behind a device op while the callback thread sleeps -> its callback starts: the op's "
     "completion reaching the driver's callback thread, then the thread's wake-up (0: callback_latency_ns)",
     CostPayer::callback_thread},
    {"callback_handover_ns", &PlatformProfile::callback_handover_ns, nullptr,
     "through a relay (callback_relay 1), a marker reached behind a device op -> the driver's callback hands it to "
     "the relay: the first part of callback_after_op_ns, during which the marker still holds its stream and its "
     "pending-callback slot (0: handed over at the marker's reach)",
     CostPayer::callback_thread},
    {"callback_run_ns", &PlatformProfile::callback_run_ns, nullptr,
     "callback thread time per callback: the host function, and the hand-off to the next one queued", CostPayer::callback_thread},
    {"host_alloc_ns", &PlatformProfile::host_alloc_ns, nullptr,
     "host time of a pool allocation (BFC under its lock)", CostPayer::host},
    {"host_free_ns", &PlatformProfile::host_free_ns, nullptr,
     "host time of a pool free", CostPayer::host},
    {"release_bookkeeping_ns", &PlatformProfile::release_bookkeeping_ns, nullptr,
     "host time of a release besides the backend calls it makes: the runtime's bookkeeping of the buffer", CostPayer::host},
    {"sync_wakeup_ns", &PlatformProfile::sync_wakeup_ns, nullptr,
     "host wake-up after a blocking synchronize completes (the host polls the stream or event)", CostPayer::host},
    {"signal_wakeup_ns", &PlatformProfile::signal_wakeup_ns, nullptr,
     "host wake-up when another thread signals it while it sleeps on a condition variable: a compute-semaphore "
     "acquire or an OOM wait (0: sync_wakeup_ns)", CostPayer::host},
    {"wake_first_launch_ns", &PlatformProfile::wake_first_launch_ns, nullptr,
     "host time the first launch after such a signalled wake-up costs beyond launch_overhead_ns (a thread that "
     "slept runs its next driver call slower)", CostPayer::host},
    {"device_op_gap_ns", &PlatformProfile::device_op_gap_ns, nullptr,
     "device time a stream spends between two dependent ops (validation kernels; 0: in the durations)", CostPayer::device},
    {"op_check_ns_per_mib", &PlatformProfile::op_check_ns_per_mib, nullptr,
     "device time the validation kernel's pattern check adds per MiB an op reads (0: not a validation run)", CostPayer::device},
    {"op_fill_ns_per_mib", &PlatformProfile::op_fill_ns_per_mib, nullptr,
     "device time the validation kernel's pattern fill adds per MiB an op writes (0: not a validation run)", CostPayer::device},
    {"spin_ns_per_cycle", nullptr, &PlatformProfile::spin_ns_per_cycle,
     "calibrated clock64() spin: ns per cycle (0.512: 1 M cycles = 512 us)", CostPayer::device},
    {"pending_callback_limit", &PlatformProfile::pending_callback_limit, nullptr,
     "host callbacks the driver holds at once (a count): a host launch past that many waits until one returns "
     "(0: no limit)", CostPayer::device},
    {"callback_relay", &PlatformProfile::callback_relay, nullptr,
     "1: the driver's callback only hands each host callback to a relay thread (the HIP backend's), so its marker "
     "leaves the stream and frees its pending-callback slot at the hand-over (callback_handover_ns), before the "
     "body runs; 0: the body runs in the driver's callback, which holds both until it returns (CUDA's own)",
     CostPayer::device},
    {"op_check_sweep", &PlatformProfile::op_check_sweep, nullptr,
     "1: the validation kernel's check pass reads an op's reads in address order over the pass, each word at its "
     "own time, so a write landing on words already checked goes unseen; 0: every read counts at the pass's end",
     CostPayer::device},
}};

// Every member is 8 bytes, so a member added without its row changes the size and stops the build.
static_assert(sizeof(PlatformProfile) == kPlatformFields.size() * 8,
              "a PlatformProfile member has no row in kPlatformFields");

inline const PlatformField* find_platform_field(std::string_view name) {
  for (const PlatformField& f : kPlatformFields)
    if (name == f.name) return &f;
  return nullptr;
}

/// A field that is 0 or 1.
inline bool is_platform_switch(const PlatformField& f) {
  return f.ns == &PlatformProfile::callback_relay || f.ns == &PlatformProfile::op_check_sweep;
}

inline double platform_value(const PlatformProfile& p, const PlatformField& f) {
  return f.ns ? double(p.*f.ns) : p.*f.ratio;
}

/// The first field still at calibrate's "not measured yet" mark (negative, or NaN), or nullptr: a
/// platform file refuses such a profile, and the simulator cannot charge it.
inline const PlatformField* first_unmeasured_field(const PlatformProfile& p) {
  for (const PlatformField& f : kPlatformFields)
    if (!(platform_value(p, f) >= 0)) return &f;
  return nullptr;
}

/// Stores `value` in `f` of `p` and returns "", or returns why it is refused (a sentence naming the
/// field) and leaves `p` alone. The one range rule for every source (YAML, `--set`, JSON files):
/// durations are 0..10^15 ns, rounded to whole ns (calibration writes medians with fractions of a
/// ns); the spin rate is positive and below 10^6 (the HIP backend divides by it).
inline std::string set_platform_field(PlatformProfile& p, const PlatformField& f, double value) {
  auto text = [](double v) {
    std::ostringstream os;
    os << v;
    return os.str();
  };
  if (is_platform_switch(f) && value != 0 && value != 1)
    return "'" + std::string(f.name) + "' is 0 or 1, got " + text(value);
  if (f.ns) {
    if (value < 0) return "negative duration: '" + std::string(f.name) + "' is " + text(value) + " ns";
    if (!(value <= 1e15)) return "'" + std::string(f.name) + "' is " + text(value) + " ns, longer than 10^15 ns";
    p.*f.ns = TimeNs(std::llround(value));
    return "";
  }
  if (!(value > 0 && value < 1e6))
    return "'" + std::string(f.name) + "' must be a positive number below 10^6, got " + text(value);
  p.*f.ratio = value;
  return "";
}

}  // namespace allocsim
