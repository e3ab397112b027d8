// Number and table formatting for report.md (private to results/src): fixed decimals, mean with
// the min–max spread over seeds, and markdown tables padded so they also line up in a terminal.
#pragma once
#include <string>
#include <vector>

#include "report_model.h"

namespace allocsim::results::detail {

std::string fixed(double v, int decimals);
/// Mean with "[min–max]" when the seeds disagree, all scaled by 1/`unit`.
std::string spread(const Stat& s, double unit, int decimals);
/// Counts (races, callbacks, OOMs): whole numbers without decimals, "[min–max]" when seeds disagree.
std::string count_spread(const Stat& s);
/// "+12.3%" / "-4.0%" / "+0.0%".
std::string signed_percent(double fraction);
/// "+12.3 µs".
std::string signed_us(double ns);
/// k of n samples as a percentage with its 95% interval (binomial_interval): "12.5% [9.1, 16.6]".
std::string rate_text(int k, int n);

/// `align[i]` true = right-aligned (numbers).
std::string markdown_table(const std::vector<std::string>& header, const std::vector<bool>& right_align,
                           const std::vector<std::vector<std::string>>& rows);

}  // namespace allocsim::results::detail
