// The short human summary `allocsim run` prints (pinned by the golden CLI tests, so keep it
// deterministic: no wall-clock times, no addresses that depend on anything but the run).
#pragma once
#include <cstddef>
#include <string>

#include "allocsim/core/program.h"
#include "allocsim/core/result.h"

namespace allocsim {

/// Bytes as "12.50 MiB (13107200 B)".
std::string format_bytes(std::uint64_t bytes);
/// Nanoseconds as "1.234567 ms (1234567 ns)".
std::string format_duration(TimeNs ns);
/// One finding in two lines (the second indented), no trailing newline.
std::string format_finding(const Finding& f, const Program* program);
/// The whole summary, ending in a newline; shows at most `max_findings` finding records.
std::string format_run_summary(const RunResult& r, const Program* program, std::size_t max_findings);

}  // namespace allocsim
