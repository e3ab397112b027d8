// RunResult -> the JSON object of DESIGN.md section 6 (a contract: keys are only ever added) and
// the flat, dotted-name row a sweep's results.csv holds. One place defines both, so the CSV
// columns and the JSON keys can never drift apart.
//
// Object layout:
//   scenario, policy, guard, semaphore, seed, completed, error, race_detection,
//   races   {latent, manifest, double_frees, use_after_release, unknown_frees,
//            callbacks_after_pool_destroyed, leaks}
//   memory  {peak_bytes_in_use, peak_live_bytes, peak_pending_bytes, peak_pool_bytes,
//            peak_in_use_time_ns, peak_live_time_ns, peak_pending_time_ns, peak_pool_time_ns}
//   time    {makespan_ns, host_stall_ns, host_blocked_policy_ns, host_blocked_semaphore_ns,
//            host_blocked_oom_ns, host_blocked_sync_ns, device_idle_ns, host_release_ns}
//   counts  {allocs, frees, callbacks, ooms, fallbacks, releases}
//   reference {max_memory_allocated, max_memory_reserved}   (PyTorch traces' own figures; 0 = none)
//   warnings [string], findings [{kind, range{begin,bytes}, first{...}, second{...}, action_between}]
#pragma once
#include <string>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "allocsim/core/program.h"
#include "allocsim/core/result.h"

namespace allocsim {

/// The section-6 object. `program` (optional) adds buffer names to findings.
boost::json::object result_to_json(const RunResult& r, const Program* program = nullptr);

/// Deterministic, indented JSON text (2 spaces, keys in insertion order, trailing newline).
std::string pretty_json(const boost::json::value& v);

/// results.csv header: the section-6 fields in contract order, then the extra fields; dotted names.
const std::vector<std::string>& result_columns();
/// One row, same order as result_columns(); values unquoted (use csv_field when writing CSV).
std::vector<std::string> result_row(const RunResult& r);
/// RFC 4180 quoting: a field with a comma, quote or newline is quoted, quotes doubled.
std::string csv_field(const std::string& s);

}  // namespace allocsim
