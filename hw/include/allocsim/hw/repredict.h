// allocsim-hw repredict: the simulator's prediction of committed validation files again, with a
// host pace and a release path chosen among those the validating process measured (issue 17). It
// needs no GPU: the hardware's side stays as the files have it, so a new way of predicting is
// judged against every session already run.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace allocsim::hw {

/// Where a re-prediction's host pace comes from: the calibration's spread, the counted trials'
/// launch cadence (as sim_host_paced), the warm-up trials' (as sim_warmup_paced), or the
/// calibration's spread times its host-pace level (host_pace_workload.h): from the calibration
/// alone, like kCalibration, with the host's pace taken against the simulator's rather than
/// against the calibrating process's own median.
enum class PaceSource { kCalibration, kTrials, kWarmup, kCalibrationLevel };
/// Where its semaphore release (callback_after_op_ns) comes from: the calibration, the release
/// the validating process timed before its trials (process_release, as sim_process_release), or
/// the releases it timed after each counted trial (validate --release-per-trial).
enum class ReleaseSource { kCalibration, kProcess, kTrials };

struct RepredictOptions {
  std::string platform_file;  // the session's calibration: the profile every file must name
  PaceSource pace = PaceSource::kTrials;
  ReleaseSource release = ReleaseSource::kProcess;
  /// 0: every simulated run draws from all the trials' measurements. n > 0: the trials in blocks
  /// of n in order (the last may be shorter) and the runs in as many blocks, each run drawing the
  /// trials' pace and release (whichever of them comes from the trials) from its block's alone:
  /// a prediction that follows them where they move within a process. Needs a per-trial source.
  int blocks = 0;
  /// Predict with the check pass sweeping its reads (op_check_sweep 1, platform.h) though the
  /// session's calibration predates the switch: the model as it is now on an older session.
  bool check_sweep = false;
  /// Platform costs predicted at 0 and without their spread (an ablation: what each one changes in
  /// the session's prediction). Durations only; a rate or an unknown name is refused.
  std::vector<std::string> zeroed;
  /// Every pace draw multiplied by this (> 0, finite), on top of the source's and the level: the
  /// prediction had the host run this much slower (> 1) or faster throughout the session. The H200's
  /// host sat at one pace for a whole session and moved between sessions, and a knife-edge
  /// execution's fraction followed it (results/hw/session-spread); the calibrated prediction at the
  /// ends of the calibration's own pace range bounds where such a session can land (hw/scripts/pace_band.py).
  double pace_factor = 1;
  /// Also the re-prediction at the two ends of the calibration's own host pace, each over its
  /// median (PaceBand, validate_report.h), as "sim_pace_band" in place of the file's: the band a
  /// session from this calibration may land in. Needs a calibration with a host pace.
  bool pace_band = false;
};

inline constexpr PaceSource kPaceSources[] = {PaceSource::kTrials, PaceSource::kWarmup, PaceSource::kCalibration,
                                              PaceSource::kCalibrationLevel};
inline constexpr ReleaseSource kReleaseSources[] = {ReleaseSource::kProcess, ReleaseSource::kTrials,
                                                    ReleaseSource::kCalibration};
const char* pace_source_name(PaceSource p);        // "calibration", "trials", "warmup", "calibration-level"
const char* release_source_name(ReleaseSource r);  // "calibration", "process", "trials"

/// For every SRC/<scenario>/semaphore-<n>/validate.json, the same file under OUT with one more
/// prediction per run, "sim_repredicted" (validate_report.h's "sim" fields), without the runs'
/// "callback_trials" (most of a file's bytes; the source keeps them), and a top-level
/// "repredicted": {"pace", "release", "blocks", "platform_source", "release_tail", "check_sweep"
/// true with that option, "pace_factor" where it is not 1, "pace_band" true with that option (its
/// "sim_pace_band" then brackets "sim_repredicted", not "sim"), and "zeroed", the fields at 0, with that one} saying what it
/// drew from (release_tail false: the file had no tail of the process's release above p99, so
/// draws there are its p99). Same seeds and runs as the file's "sim": with the calibration's pace and
/// release it is "sim" again, byte for byte. Every file is read and predicted before any is
/// written. Throws std::runtime_error naming the file: not a validate.json, a --set or
/// --schedule run, a profile other than the platform file's, a pace or release the file did not
/// measure, or blocks without a per-trial source; std::invalid_argument for a pace factor that is
/// not positive and finite. A pace band asked of a calibration with no host pace is a
/// std::runtime_error too. `progress` gets one line per file.
void repredict_session(const std::string& src, const std::string& out, const RepredictOptions& options,
                       const std::function<void(const std::string&)>& progress);

}  // namespace allocsim::hw
