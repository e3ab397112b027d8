// The output of `allocsim-hw validate`: DIR/validate.json (schema below, relied on by reports) and
// DIR/validate.md (the same numbers as tables, plus the closing notes).
//
// validate.json: {"device", "scenario", "command", "semaphore", "platform_source", "platform",
//   "process_pace" (optional: ProcessPace's fields and "applied"), "process_release" (optional:
//   ProcessRelease's fields, spreads at kSpreadLevels, "measured_tail" at tail_level, and
//   "applied"), "runs": [
//   {"policy", "guard", "trials", "executions", "aliased", "corrupted", "corrupted_executions",
//    "corrupted_rate", "corrupted_by_execution", "corrupted_words", "stale_trials", "stale_words", "peak_bytes_in_use",
//    "peak_bytes_in_use_min", "host_ns_per_free", "instrument_ns_per_free",
//    "host_calls": {<kHostCalls name>: {"calls", "ns"}}, "host_calls_all" (the same, every call),
//    "frees", "wall_ns", "error", "rate_diff_pp",
//    "sim": {"runs", "latent", "manifest", "manifest_executions", "manifest_rate",
//            "manifest_by_execution", "trial_manifest_rate", "peak_bytes_in_use", "peak_bytes_in_use_min",
//            "peak_bytes_in_use_max", "host_ns_per_free", "host_busy_ns", "host_cadence_ns", "host_pace",
//            "completed", "available"},
//    "host_busy_ns", "host_cadence_ns", "host_cadence_by_trial", "corrupted_executions_by_trial" (each
//    trial's list), "cpu_ticks_by_trial", "steal_ticks_by_trial" and "steal_share" (optional: the
//    hypervisor's steal, cpu_steal.h), "host_cpu_by_trial" and "cpu_probe_ns_by_trial" (optional), "call_ns_by_trial" (optional:
//    {<kHostCalls name>: [ns per trial]} for the kinds called), "warmup" (optional: {"trials",
//    "host_cadence_by_trial"}), "sim_host_paced", "sim_warmup_paced" and "sim_process_release"
//    (optional): the same fields as "sim" (validate_runner.h), "sim_pace_band" (optional, validate
//    --pace-band): {"low_factor", "high_factor", "low" and "high" with the fields of "sim"} (PaceBand),
//    "corruption_pairs": [{"reader", "reader_execution", "writer", "writer_execution", "hw_trials",
//                          "hw_words", "sim_runs"}],
//    "callback_trials" (only for runs whose trials ran policy callbacks): [CallbackTrial's fields]}]}
// Host cost per free: the host time of release plans over the releases, median over trials
// (hardware, less the validation's own instrumentation) or over seeds (simulator);
// `host_calls` splits the hardware's by backend call (host_calls.h), summed over all trials;
// `host_calls_all` is every timed call of the host thread, in release plans or not.
// `aliased` / `corrupted` count TRIALS (a trial aliased if some allocation got bytes another
// allocation of the same trial had held; corrupted if a read saw a FOREIGN word: another
// allocation's pattern or another allocation's zeroing). Reads that saw an older version of their
// own allocation are counted apart (`stale_*`), not as corruption (pattern.h).
// Rates are per EXECUTION (execution_units.h): `corrupted_rate` = corrupted_executions /
// (trials x executions) on the GPU, `sim.manifest_rate` = executions with a manifest corruption /
// (sim runs x executions); `rate_diff_pp` = 100 x (hw rate - sim rate).
//
// validate --schedule adds "schedule": {"file", "schedule" (the file as read, core/schedule.h),
//   "sim_replay" (true: the forced run's "sim" is the simulator's replay of the schedule),
//   "forced": a run as above plus "delays": [{"hold", "until", "held_ns" (null: none),
//   "timed_out_trials", "not_held_trials", "not_signalled_trials"}]}; "runs" then holds the same
// trials without the delays (the baseline), with the simulator's prediction as always.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "allocsim/core/platform.h"
#include "allocsim/core/platform_spread.h"
#include "allocsim/hw/host_calls.h"

namespace allocsim::hw {

struct SimPrediction {
  int runs = 0;                // simulated runs (seeds), one per hardware trial
  std::uint64_t latent = 0;    // latent races in the simulated run (seed = trial 0's seed)
  std::uint64_t manifest = 0;  // manifest corruptions in the simulated run(s)
  std::uint64_t manifest_executions = 0;  // executions with >= 1 manifest corruption, all runs
  std::vector<int> manifest_by_execution;  // [i]: simulated runs in which execution i had one
  double manifest_rate = 0;    // manifest_executions / (runs x executions)
  double trial_manifest_rate = 0;  // fraction of simulated runs with >= 1 manifest corruption
  std::uint64_t peak_bytes_in_use = 0;  // the first simulated run's
  std::uint64_t peak_bytes_in_use_min = 0, peak_bytes_in_use_max = 0;  // over all simulated runs
  double host_ns_per_free = 0;  // median over seeds of host_release_ns / releases
  double host_busy_ns = 0;      // median over seeds of RunMeasures::host_busy_ns
  double host_cadence_ns = 0;   // median over seeds of the launch cadence (TrialStats::host_cadence_ns)
  std::vector<double> host_pace;  // the host pace's quantiles the runs drew from, times the spread's host_pace_level (empty: none)
  bool completed = true;
  bool available = true;  // false: the simulator could not be run (message in error)
};

/// The calibrated prediction replayed at the two ends of the calibration's own host pace
/// (validate --pace-band, repredict --pace-band): every pace draw times `low_factor` (the
/// calibration's p0 host pace over its median) and times `high_factor` (its p99 over its median).
/// A session's host sat at one pace throughout and moved between sessions, and an execution on the
/// edge followed it (results/hw/session-spread); one probability cannot be near every session, but
/// an execution's band, the lowest to the highest of the three predictions, bounds where a session
/// from this calibration may land (results/hw/pace-band).
struct PaceBand {
  double low_factor = 1, high_factor = 1;
  SimPrediction low, high;
};

/// One (reader, writer) pair of a corruption, as both sides saw it: the hardware's foreign reads
/// by whose data they were (TrialStats::foreign_sources), the simulator's manifest findings by
/// their victim and clobbering write. A memset's zeroes are anonymous on the hardware, so a
/// simulated clobber by a memset counts as "(zeroing)" too.
struct CorruptionPair {
  std::string reader, writer;  // buffer names; writer also "(zeroing)" or "(earlier trial)"
  int reader_execution = 0, writer_execution = -1;  // -1: the writer is no allocation
  int hw_trials = 0;           // trials in which the reader saw the writer's data
  std::uint64_t hw_words = 0;  // such words, all trials
  int sim_runs = 0;            // simulated runs with a manifest finding of this pair
};

/// One forced delay over a run's trials (validate --schedule; trial numbers from 0).
struct ForcedDelayResult {
  std::string hold, until;  // locators as describe() writes them
  std::optional<std::int64_t> held_ns;  // how long the simulator held it (from the file)
  std::vector<int> timed_out_trials;      // its gate / host wait gave up before the until step was done
  std::vector<int> not_held_trials;       // the held step never came (an op was skipped)
  std::vector<int> not_signalled_trials;  // the until step never came
};

/// One trial of a run whose policy frees in host callbacks: its peak and how its callbacks waited
/// on the relay's thread (TrialStats::callback_lock_wait_samples, callback_delay_samples; ns).
struct CallbackTrial {
  std::uint64_t peak_bytes_in_use = 0;
  std::uint64_t callbacks = 0;
  double lock_wait_max_ns = 0, lock_wait_total_ns = 0;  // waits for the backend's state lock
  double delay_median_ns = 0, delay_max_ns = 0;         // enqueue to body start
  double hold_median_ns = 0, hold_total_ns = 0;         // the bodies, holding the lock
  double instrument_ns = 0;                             // validation's checks inside them
  double host_lock_wait_ns = 0;                         // the host thread's waits for the lock
  double reach_max_ns = 0, wake_max_ns = 0;             // enqueue to hand-over; hand-over to relay
  double wall_ns = 0;                                   // the trial's (TrialStats::wall_ns)
};

struct ValidateRun {
  std::string policy, guard;
  int trials = 0;
  int aliased = 0;    // trials with address reuse across allocations
  int executions = 1;  // executions per trial (BeginExecution ops of the program; >= 1)
  int corrupted = 0;  // trials with >= 1 foreign word read
  std::uint64_t corrupted_executions = 0;  // executions with >= 1 foreign word read, all trials
  double corrupted_rate = 0;               // corrupted_executions / (trials x executions)
  std::vector<int> corrupted_by_execution;  // [i]: trials in which execution i had a foreign read
  // Trial by trial, the executions it corrupted: beside host_cadence_by_trial, whether an execution
  // near an edge went with its trial's pace.
  std::vector<std::vector<int>> corrupted_executions_by_trial;
  std::uint64_t corrupted_words = 0;
  int stale_trials = 0;            // trials where a read saw an older version of its own allocation
  std::uint64_t stale_words = 0;   // such words (a same-allocation data race, not corruption)
  std::uint64_t peak_bytes_in_use = 0;  // pool bytes in use, max over trials
  std::uint64_t peak_bytes_in_use_min = 0;  // ... min over trials (equal to max: deterministic)
  double host_ns_per_free = 0;          // median over trials of (host ns in release plans / releases)
  double instrument_ns_per_free = 0;    // the instrumentation left out of it, same median
  std::array<CallTime, std::size_t(HostCall::kCount)> host_calls{};  // release plans' calls, all trials
  std::array<CallTime, std::size_t(HostCall::kCount)> host_calls_all{};  // every host-thread call, all trials
  std::uint64_t frees = 0;              // releases per trial
  std::int64_t wall_ns = 0;             // all trials together
  double host_busy_ns = 0;              // median over trials of TrialStats::host_busy_ns
  double host_cadence_ns = 0;           // median over trials of TrialStats::host_cadence_ns
  std::vector<double> host_cadence_by_trial;  // each trial's TrialStats::host_cadence_ns, in order
  // validate --warmup-trials: the uncounted trials run first in this process, each one's cadence.
  int warmup_trials = 0;
  std::vector<double> warmup_host_cadence_by_trial;
  // validate --release-per-trial: after each counted trial, that many semaphore releases timed in
  // this process (the kernel's end to the callback's body, ns): whether the release moves within a
  // process, trial by trial beside host_cadence_by_trial. Empty: not timed.
  std::vector<std::vector<double>> release_after_op_by_trial;
  // Every CPU's time and the part the hypervisor stole during each counted trial (ticks of
  // /proc/stat, cpu_steal.h), beside host_cadence_by_trial: the outside load each trial ran under.
  // Empty where /proc/stat has no steal.
  std::vector<std::uint64_t> cpu_ticks_by_trial, steal_ticks_by_trial;
  // The CPU the trials' thread was on as each counted trial began (sched_getcpu): whether the
  // pace moves with the CPU it runs on. validate --host-cpu pins it.
  std::vector<int> host_cpu_by_trial;
  // After each counted trial, on its thread: a fixed piece of CPU work's time (cpu_probe.h), ns.
  std::vector<double> cpu_probe_ns_by_trial;
  // Each counted trial's host time in each kind of backend call (TrialStats::calls), ns: which calls
  // a trial's pace went into.
  std::array<std::vector<double>, std::size_t(HostCall::kCount)> call_ns_by_trial{};
  /// Their sums' ratio: the share of all CPUs' time stolen during the counted trials (-1: not recorded).
  double steal_share() const;
  std::string error;                    // non-empty: the run failed (e.g. starvation timeout)
  SimPrediction sim;
  // The prediction again with this host's pace on this program, measured in the trials above:
  // each trial's launch cadence over the simulator's median (sim.host_cadence_ns), as the host
  // pace every simulated run draws from instead of the calibration's. Only the host's speed comes
  // from the trials, none of their outcomes. Absent for a forced run.
  std::optional<SimPrediction> sim_host_paced;
  // The same with the pace of the warm-up trials instead: measured in this process before any
  // counted trial, so it is a prediction made before the trials it is compared with.
  std::optional<SimPrediction> sim_warmup_paced;
  // With ProcessRelease: the prediction with the release path timed in this process instead of
  // the calibration's (its callback_after_op_ns and spread), everything else as `sim`.
  std::optional<SimPrediction> sim_process_release;
  // validate --pace-band, where the calibration has a host pace: `sim` at its pace's two ends.
  std::optional<PaceBand> sim_pace_band;
  std::vector<CorruptionPair> corruption_pairs;  // by reader, then writer (BufferId order)
  std::vector<ForcedDelayResult> forced_delays;  // validate --schedule's forced run only
  std::vector<CallbackTrial> callback_trials;    // by trial; empty when no trial ran a callback
};

/// validate --schedule: the run with the schedule's delays forced, next to `runs`' unforced one.
struct ScheduleSection {
  std::string file;      // the --schedule path
  std::string schedule;  // the schedule as read, in write_schedule's form
  ValidateRun forced;
};

/// The host's pace in the validating process (PlatformSpread::host_pace_reference_ns): the
/// calibration's host-pace workload run here before the trials, its median host busy time over the
/// calibrating process's. Reported, not applied ("applied": false in validate.json): the one
/// version that scaled the calibrated prediction's pace by it wrote no "applied" key
/// (results/hw/h200-inproc, which found that it does not follow the programs' own pace).
struct ProcessPace {
  int trials = 0;           // of the host-pace workload, here
  double reference_ns = 0;  // its median host busy time in the calibrating process
  double busy_ns = 0;       // ... in this one
  double pace() const { return busy_ns / reference_ns; }
};

/// The semaphore release's path in the validating process: calibrate's kernel-end-to-callback
/// measurement (callback_after_op_ns) run here before the trials, and a prediction charging it
/// (ValidateRun::sim_process_release). Reported, not applied ("applied": false): the calibrating
/// process's release tail differs from the validating processes' (results/hw/h200-release-2), but
/// the one pass that applied this process's instead ("applied": true, `sim_calibration_release`
/// the calibration's; results/hw/h200-process-release) predicted no better.
struct ProcessRelease {
  int rounds = 0;
  double calibration_ns = 0;                  // the calibration's callback_after_op_ns
  std::vector<double> calibration, measured;  // the spreads, at kSpreadLevels
  std::vector<double> measured_tail;          // this process's above p99, at tail_level (empty: none)
  /// This process's callback_after_op_ns: its spread's median, in whole ns as the profile holds it.
  TimeNs measured_ns() const { return TimeNs(PlatformSpread::at(measured, 0.5)); }
};

struct ValidateReport {
  std::string device;    // e.g. "NVIDIA H200 (sm_90, 143771 MiB, HIP on NVIDIA)"
  std::string scenario;
  std::string command;   // the exact command line
  PlatformProfile platform;
  std::string platform_source;  // file, or "defaults"
  int semaphore = 0;
  std::vector<ValidateRun> runs;
  std::optional<ScheduleSection> schedule;
  std::optional<ProcessPace> process_pace;  // absent: the platform file has no reference, or --schedule
  std::optional<ProcessRelease> process_release;  // absent: no callback_after_op_ns spread, --schedule, or --release-rounds 0
};

std::string validate_json(const ValidateReport& r);
/// One prediction as validate.json's "sim" object has it.
std::string sim_prediction_json(const SimPrediction& p);
std::string validate_markdown(const ValidateReport& r);
/// Writes DIR/validate.json and DIR/validate.md: both or neither (temp files, then two renames).
/// Throws std::runtime_error naming the path on failure.
void write_validate_files(const std::string& dir, const ValidateReport& r);

}  // namespace allocsim::hw
