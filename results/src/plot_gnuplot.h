// The report's three plots, rendered by gnuplot into PNGs (private to results/src). Data files
// and the script go to a scratch folder inside DIR; each PNG is moved into DIR only when gnuplot
// succeeded, so a failed plot never leaves a half-written image.
#pragma once
#include <filesystem>
#include <string>

#include "allocsim/results/report.h"

namespace allocsim::results::detail {

/// Renders what the input allows; never throws for a missing or failing gnuplot (plot_note says).
ReportOutcome render_plots(const std::filesystem::path& dir, const ReportInput& in, const std::string& gnuplot);

}  // namespace allocsim::results::detail
