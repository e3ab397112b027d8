// write_report: read the sweep folder, render plots (unless disabled), write report.md and headline.md.
#include "allocsim/results/report.h"

#include <cstdlib>
#include <cstring>

#include "plot_gnuplot.h"
#include "sweep_files.h"

namespace allocsim::results {

ReportOutcome write_report(const std::filesystem::path& dir, const ReportOptions& options) {
  ReportInput in = read_report_input(dir);
  bool plots = options.plots;
  if (const char* v = std::getenv("ALLOCSIM_NO_PLOTS"); v && *v && std::strcmp(v, "0") != 0) plots = false;
  std::string gnuplot = options.gnuplot;
  if (const char* v = std::getenv("ALLOCSIM_GNUPLOT"); v && *v) gnuplot = v;
  ReportOutcome out;
  if (plots) out = detail::render_plots(dir, in, gnuplot);
  else out.plot_note = "plots were disabled for this report (--no-plots or ALLOCSIM_NO_PLOTS).";
  detail::write_whole_file(dir / "report.md", render_report_markdown(in, out));
  detail::write_whole_file(dir / "headline.md", render_headline_markdown(in));
  return out;
}

}  // namespace allocsim::results
