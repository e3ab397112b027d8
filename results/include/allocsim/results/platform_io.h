// The platform profile as a JSON file: `allocsim-hw calibrate` writes the costs it measured on a
// real GPU, `allocsim run --platform FILE` loads them, so the simulator predicts for that machine.
// Format: one flat object whose keys are the PlatformProfile field names (core/platform.h).
// Missing keys keep the H200 defaults; unknown keys, wrong types and negative values are errors
// (a misspelt key silently ignored would make a calibration look applied when it is not). One more
// key, "spread", holds the costs' distributions (core/platform_spread.h): an object from field name
// to its kSpreadLevels quantiles, ascending; and "spread_tail", the tails above p99 of some of
// them (field name -> its values from p99.9 to the largest sample, at
// platform_spread.h's tail_level); "host_pace_reference_ns", the calibrating
// processes' host-pace reference (a number); and "host_pace_level", the host's level against the
// simulator's charges (a factor). platform_from_json passes over the four, spread_from_json reads
// only them.
#pragma once
#include <stdexcept>
#include <string>

#include <boost/json/fwd.hpp>

#include "allocsim/core/params.h"
#include "allocsim/core/platform.h"
#include "allocsim/core/platform_spread.h"

namespace allocsim {

/// Bad platform file: the message names the file and the offending key.
class PlatformError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// JSON text (pretty, one key per line, declaration order) of every field, then the spread's
/// fields that have quantiles (none: no "spread" key).
std::string platform_to_json(const PlatformProfile& p, const PlatformSpread& spread = {});
/// The "spread" of a platform file's JSON text (empty when it has none). Throws PlatformError.
PlatformSpread spread_from_json(const std::string& text, const std::string& source = "<platform>");
/// Parse JSON text; `source` names it in error messages. Throws PlatformError.
PlatformProfile platform_from_json(const std::string& text, const std::string& source = "<platform>");

/// Apply the `--set` values whose key is a PlatformProfile field name (e.g. callback_latency_ns=50000)
/// on top of `p`, so `--set` still wins over a --platform file. Other keys are ignored; a value out
/// of range throws PlatformError.
void apply_platform_overrides(PlatformProfile& p, const Params& sets);

/// File helpers: read (throws PlatformError, also for an unreadable file) and atomic write
/// (throws FileWriteError).
PlatformProfile load_platform_file(const std::string& path);
PlatformSpread load_platform_spread(const std::string& path);
void save_platform_file(const std::string& path, const PlatformProfile& p, const PlatformSpread& spread = {});

}  // namespace allocsim
