// The summary of a hardware validation session: DIR/validate.md, generated from every
// DIR/<scenario>/semaphore-<n>/validate.json that `allocsim-hw validate` wrote there.
//
// Why generated: a typed summary drifts from its tables (the H200 summary once said "immediate +
// none is the only racy combination" while its own tables showed others). Every number and every
// sentence here is computed from the JSON files, and tests/hw checks that the committed
// results/hw/h200/validate.md equals what this code makes of the committed JSON.
#pragma once
#include <string>

namespace allocsim::hw {

/// The summary markdown for the validation session in `dir`. Throws std::runtime_error naming the
/// file when a validate.json is missing a field or is not JSON, or when `dir` holds none.
std::string validate_summary_markdown(const std::string& dir);

}  // namespace allocsim::hw
