// `allocsim report DIR`: report.md + PNG plots from a sweep's results.json (what `allocsim sweep`
// runs at its end). Exit status: 0 ok; 2 missing or malformed results, unwritable DIR.
#include <iostream>
#include <memory>

#include "allocsim/results/report.h"
#include "command.h"

namespace {
namespace res = allocsim::results;

struct ReportArgs {
  std::string dir;
  bool no_plots = false;
  std::string gnuplot = "gnuplot";
};

allocsim::cli::RunFn setup_report(CLI::App& sub) {
  auto a = std::make_shared<ReportArgs>();
  sub.add_option("DIR", a->dir, "a sweep's output folder (holds results.json)")->required();
  sub.add_flag("--no-plots", a->no_plots, "tables only (also: ALLOCSIM_NO_PLOTS=1)");
  sub.add_option("--gnuplot", a->gnuplot, "gnuplot program (default gnuplot; also ALLOCSIM_GNUPLOT)");
  sub.footer(
      "Examples:\n"
      "  allocsim report results/conv-autotune\n"
      "  allocsim report out/sweep --no-plots\n"
      "Writes DIR/report.md, DIR/headline.md and, when gnuplot is available, DIR/peak_vs_semaphore.png,\n"
      "DIR/host_time_vs_peak.png and DIR/memory_over_time.png. A sweep run with --samples also gets each point's\n"
      "manifest-corruption rate with its 95% interval, e.g. \"12.5% [9.1, 16.6]\". Exit status: 0 ok, 2 bad input.");
  return [a]() -> int {
    try {
      res::ReportOptions o;
      o.plots = !a->no_plots;
      o.gnuplot = a->gnuplot;
      res::ReportOutcome out = res::write_report(a->dir, o);
      std::cout << "report    " << (std::filesystem::path(a->dir) / "report.md").string() << "\n";
      for (const auto& p : out.plots) std::cout << "plot      " << (std::filesystem::path(a->dir) / p).string() << "\n";
      if (!out.plot_note.empty()) std::cerr << "report: " << out.plot_note << "\n";
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "allocsim: error: " << e.what() << "\n";
      return 2;
    }
  };
}

}  // namespace

ALLOCSIM_COMMAND("report", "Write report.md and plots from a sweep's results", setup_report, 40);
