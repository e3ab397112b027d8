// allocsim-hw repredict: the simulator's prediction of committed validation files again, with a
// host pace and a release path chosen among those the validating process measured (issue 17). It
// needs no GPU: the hardware's side stays as the files have it, so a new way of predicting is
// judged against every session already run.
#pragma once
#include <functional>
#include <string>

namespace allocsim::hw {

/// Where a re-prediction's host pace comes from: the calibration's spread, the counted trials'
/// launch cadence (as sim_host_paced), or the warm-up trials' (as sim_warmup_paced).
enum class PaceSource { kCalibration, kTrials, kWarmup };
/// Where its semaphore release (callback_after_op_ns) comes from: the calibration, or the release
/// the validating process timed before its trials (process_release, as sim_process_release).
enum class ReleaseSource { kCalibration, kProcess };

struct RepredictOptions {
  std::string platform_file;  // the session's calibration: the profile every file must name
  PaceSource pace = PaceSource::kTrials;
  ReleaseSource release = ReleaseSource::kProcess;
};

inline constexpr PaceSource kPaceSources[] = {PaceSource::kTrials, PaceSource::kWarmup, PaceSource::kCalibration};
inline constexpr ReleaseSource kReleaseSources[] = {ReleaseSource::kProcess, ReleaseSource::kCalibration};
const char* pace_source_name(PaceSource p);        // "calibration", "trials", "warmup"
const char* release_source_name(ReleaseSource r);  // "calibration", "process"

/// For every SRC/<scenario>/semaphore-<n>/validate.json, the same file under OUT with one more
/// prediction per run, "sim_repredicted" (validate_report.h's "sim" fields), without the runs'
/// "callback_trials" (most of a file's bytes; the source keeps them), and a top-level
/// "repredicted": {"pace", "release", "platform_source", "release_tail"} saying what it drew
/// from (release_tail false: the file had no tail of the process's release above p99, so draws
/// there are its p99). Same seeds and runs as the file's "sim": with the calibration's pace and
/// release it is "sim" again, byte for byte. Every file is read and predicted before any is
/// written. Throws std::runtime_error naming the file: not a validate.json, a --set or
/// --schedule run, a profile other than the platform file's, or a pace or release the file did
/// not measure. `progress` gets one line per file.
void repredict_session(const std::string& src, const std::string& out, const RepredictOptions& options,
                       const std::function<void(const std::string&)>& progress);

}  // namespace allocsim::hw
