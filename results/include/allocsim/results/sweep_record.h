// How a sweep stores one run: the DESIGN.md section 6 object (nested keys races.*, memory.*,
// time.*, counts.*) as JSON text, and the sweep's CSV table (section 6 columns first, in that
// order). Reading is tolerant of extra keys, so results.json written by a newer tool (with
// findings, warnings, ...) still loads; a missing contract key is an error.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "allocsim/core/result.h"

namespace allocsim::results {

/// DESIGN.md section 6 columns, in contract order (dotted names = nested JSON keys).
const std::vector<std::string>& contract_columns();

/// All results.csv columns: the contract columns, then completed and error.
const std::vector<std::string>& sweep_csv_columns();
std::vector<std::string> sweep_csv_row(const RunResult& r);
/// RFC 4180 quoting (only when needed).
std::string csv_escape(const std::string& field);
/// Header + one row per result, '\n' line ends.
std::string sweep_csv_text(const std::vector<RunResult>& results);

/// One run as a JSON object (compact, keys in a fixed order: byte-stable output).
std::string run_result_json(const RunResult& r);
/// Parses run_result_json() output (or any object carrying the contract keys).
/// Returns nullopt and sets `error` when the text is not such an object.
std::optional<RunResult> run_result_from_json(const std::string& text, std::string* error = nullptr);

}  // namespace allocsim::results
