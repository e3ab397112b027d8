// How a sweep stores one run: the DESIGN.md section 6 object (nested keys races.*, memory.*,
// time.*, counts.*) as JSON text, and the sweep's CSV table. The layout and columns are
// result_json.h's (the `allocsim run --json` object), so a run and a sweep row never disagree.
// Reading is tolerant of extra keys (a newer tool's results.json still loads); a missing
// contract key is an error.
#pragma once
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <vector>

#include "allocsim/core/result.h"

namespace allocsim::results {

/// results.csv: header result_columns() (section 6 columns first, in contract order, then the
/// extras), one row per result, '\n' line ends.
std::string sweep_csv_text(const std::vector<RunResult>& results);

/// One run as a compact JSON object: result_to_json() (result_json.h) without `findings`.
std::string run_result_json(const RunResult& r);
/// Parses run_result_json() output (or any object carrying the contract keys).
/// Returns nullopt and sets `error` when the text is not such an object.
std::optional<RunResult> run_result_from_json(const std::string& text, std::string* error = nullptr);
/// The same from an already parsed value (a record's "result"), not printed and parsed again:
/// the collector of a sweep reads every record on one thread.
std::optional<RunResult> run_result_from_value(const boost::json::value& value, std::string* error = nullptr);

}  // namespace allocsim::results
