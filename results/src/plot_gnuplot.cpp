// gnuplot scripts for the report's plots (see plot_gnuplot.h).
#include "plot_gnuplot.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <unistd.h>

#include "report_format.h"
#include "report_model.h"
#include "sweep_files.h"

namespace allocsim::results::detail {
namespace fs = std::filesystem;

namespace {

const char* const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
const int kGuardPoints[] = {7, 5, 9, 13, 11, 15};  // filled circle, square, triangles, diamond, pentagon
const int kPolicyPoints[] = {7, 5, 9, 13, 11, 15, 3, 1, 2, 4};

std::string colour(std::size_t i) { return kColours[i % (sizeof kColours / sizeof *kColours)]; }
int guard_point(std::size_t i) { return kGuardPoints[i % (sizeof kGuardPoints / sizeof *kGuardPoints)]; }
int policy_point(std::size_t i) { return kPolicyPoints[i % (sizeof kPolicyPoints / sizeof *kPolicyPoints)]; }

/// Policy i's x position on the log2 semaphore axis, nudged sideways so that policies with equal
/// values (common: several policies hold exactly the live bytes) stay visible side by side.
double nudged(int semaphore, std::size_t i, std::size_t n) {
  return semaphore * std::exp2((static_cast<double>(i) - (n - 1) / 2.0) * 0.035);
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// gnuplot string literal (double-quoted, escapes).
std::string gp_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {  // a line break in a title
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

/// A scenario given as a file path (a YAML file, a PyTorch trace) is named by its file name in
/// titles: a long relative path pushes the title off the image.
std::string title_name(const std::string& scenario) {
  const auto slash = scenario.find_last_of('/');
  return slash == std::string::npos || slash + 1 == scenario.size() ? scenario : scenario.substr(slash + 1);
}

int run_shell(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return rc == -1 ? -1 : WEXITSTATUS(rc);
}

std::string header(const std::string& terminal, int w, int h, const std::string& png) {
  std::ostringstream os;
  os << "set terminal " << terminal << " size " << w << "," << h << (terminal == "pngcairo" ? " font 'sans,10'" : "")
     << "\nset output " << gp_string(png)
     // noenhanced: titles hold scenario names and paths (torch_traces/mlp_adamw), whose '_' would
     // otherwise turn the next letter into a subscript
     << "\nset termoption noenhanced\nset grid\nset key outside right top\nset datafile missing 'nan'\n";
  return os.str();
}

// (1) peak in-use vs semaphore capacity, one line per policy, guard fixed.
std::string peak_vs_semaphore(const ScenarioModel& m, const std::string& guard, const fs::path& tmp,
                              const std::string& terminal) {
  std::ostringstream data, racy, gp;
  for (std::size_t i = 0; i < m.policies.size(); ++i) {
    for (int s : m.semaphores)
      if (const Cell* c = m.cell(m.policies[i], guard, s)) {
        const std::string x = fixed(nudged(s, i, m.policies.size()), 4);
        data << x << " " << fixed(c->peak_in_use.mean / kMiB, 4) << " " << fixed(c->peak_in_use.min / kMiB, 4) << " "
             << fixed(c->peak_in_use.max / kMiB, 4) << "\n";
        if (c->racy()) racy << x << " " << fixed(c->peak_in_use.mean / kMiB, 4) << "\n";
      }
    data << "\n\n";
  }
  detail::write_whole_file(tmp / "peak.dat", data.str());
  detail::write_whole_file(tmp / "peak_racy.dat", racy.str().empty() ? "nan nan\n" : racy.str());
  gp << header(terminal, 1000, 600, "peak_vs_semaphore.png");
  gp << "set title " << gp_string("Peak in-use vs compute-semaphore capacity — " + title_name(m.name) + ", guard: " + guard) << "\n";
  gp << "set xlabel 'compute-semaphore capacity (executions in flight, log scale)'\n"
     << "set ylabel 'peak in-use (MiB)'\nset logscale x 2\nset xtics (";
  for (std::size_t i = 0; i < m.semaphores.size(); ++i) gp << (i ? "," : "") << m.semaphores[i];
  gp << ")\nset xrange [" << m.semaphores.front() / 1.4 << ":" << m.semaphores.back() * 1.4 << "]\nset yrange [0:*]\n";
  gp << "set key outside right top Left reverse\n";
  gp << "set label 1 \"Points are nudged sideways\\nso that equal values stay visible.\\nError bars: min-max over seeds.\" "
        "at screen 0.705, screen 0.6 font ',9'\n";
  gp << "plot \\\n";
  for (std::size_t i = 0; i < m.policies.size(); ++i)
    gp << "  'peak.dat' index " << i << " using 1:2:3:4 with yerrorlines lw 2 dt " << (i % 5 + 1) << " pt "
       << policy_point(i) << " ps 1.3 lc rgb '" << colour(i) << "' title " << gp_string(m.policies[i]) << ", \\\n";
  gp << "  'peak_racy.dat' using 1:2 with points pt 2 ps 2.5 lw 2 lc rgb 'black' title 'racy (latent or manifest race)'\n";
  return gp.str();
}

// (2) host time vs peak in-use at the reference semaphore; colour = policy, shape = guard. Host
// time is what the verdict ranks on: the blocking the policy causes when the runs measured it,
// makespan otherwise (not host stall, which is mostly the program's final sync).
std::string host_time_vs_peak(const ScenarioModel& m, const fs::path& tmp, const std::string& terminal) {
  const int sem = m.reference_semaphore();
  std::ostringstream data, racy, gp;
  double max_mib = 0;
  for (const auto& [key, c] : m.cells)
    if (std::get<2>(key) == sem) max_mib = std::max(max_mib, c.peak_in_use.mean / kMiB);
  const double n = static_cast<double>(m.policies.size());
  for (std::size_t i = 0; i < m.policies.size(); ++i) {
    // Nudge each policy sideways by under 1% of the axis so coinciding points stay visible.
    const double dx = (static_cast<double>(i) - (n - 1) / 2) * 0.008 * max_mib;
    for (std::size_t g = 0; g < m.guards.size(); ++g)
      if (const Cell* c = m.cell(m.policies[i], m.guards[g], sem)) {
        const double y = m.blocking_measured ? c->policy_blocked.mean / 1e3 : c->makespan.mean / 1e6;
        const std::string xy = fixed(c->peak_in_use.mean / kMiB + dx, 4) + " " + fixed(y, 3);
        data << xy << " " << guard_point(g) << "\n";
        if (c->racy()) racy << xy << "\n";
      }
    data << "\n\n";
  }
  detail::write_whole_file(tmp / "stall.dat", data.str());
  detail::write_whole_file(tmp / "stall_racy.dat", racy.str().empty() ? "nan nan\n" : racy.str());
  const std::string y_name = m.blocking_measured ? "host blocked by the policy" : "makespan";
  gp << header(terminal, 1000, 650, "host_time_vs_peak.png");
  const std::string title = (m.blocking_measured ? "Host blocked by the policy" : "Makespan") +
                            std::string(" vs peak in-use — ") + title_name(m.name) + ", semaphore " +
                            std::to_string(sem) + " (mean over seeds)";
  gp << "set title " << gp_string(title) << "\n";
  gp << "set xlabel 'peak in-use (MiB)'\nset ylabel "
     << gp_string(y_name + (m.blocking_measured ? " (µs)" : " (ms)"))
     << "\nset offsets 0, graph 0.05, graph 0.05, graph 0.05\nset xrange [0:*]\n";
  gp << "set key outside right top Left reverse\n";
  gp << "set label 1 \"Points are nudged sideways\\n(under 1% of the axis)\\nso that equal values stay visible.\" "
        "at screen 0.705, screen 0.45 font ',9'\n";
  gp << "plot \\\n";
  for (std::size_t i = 0; i < m.policies.size(); ++i)
    gp << "  'stall.dat' index " << i << " using 1:2:3 with points pt variable ps 1.6 lc rgb '" << colour(i)
       << "' notitle, \\\n  keyentry with lines lw 8 lc rgb '" << colour(i) << "' title "
       << gp_string("policy: " + m.policies[i]) << ", \\\n";
  for (std::size_t g = 0; g < m.guards.size(); ++g)
    gp << "  keyentry with points pt " << guard_point(g) << " ps 1.6 lc rgb 'black' title "
       << gp_string("guard: " + m.guards[g]) << ", \\\n";
  gp << "  'stall_racy.dat' using 1:2 with points pt 6 ps 3.2 lw 2 lc rgb 'red' title 'racy (latent or manifest race)'\n";
  return gp.str();
}

// (3) live / pending / in-use over time, one panel per policy.
std::string memory_over_time(const MemorySeries& s, const std::string& scenario, const fs::path& tmp,
                             const std::string& terminal) {
  std::ostringstream data, gp;
  double max_mib = 0, max_ms = 0;
  std::vector<double> panel_max_mib;
  for (const auto& [policy, samples] : s.runs) {
    panel_max_mib.push_back(0);
    for (const auto& x : samples) {
      data << fixed(x.t / 1e6, 6) << " " << fixed(x.live / kMiB, 4) << " " << fixed(x.pending / kMiB, 4) << " "
           << fixed(x.in_use / kMiB, 4) << "\n";
      max_mib = std::max(max_mib, x.in_use / kMiB);
      panel_max_mib.back() = std::max(panel_max_mib.back(), x.in_use / kMiB);
      max_ms = std::max(max_ms, x.t / 1e6);
    }
    data << "\n\n";
  }
  // One y scale for all panels so policies compare at a glance, unless one policy's peak dwarfs
  // another's by more than kOwnScaleRatio (e.g. batched-callback on a trace without executions,
  // whose batch never flushes): then the small panels would be flat lines, so each gets its own.
  constexpr double kOwnScaleRatio = 8;
  double min_panel = max_mib;
  for (double v : panel_max_mib)
    if (v > 0) min_panel = std::min(min_panel, v);
  const bool own_scale = min_panel > 0 && max_mib > kOwnScaleRatio * min_panel;
  detail::write_whole_file(tmp / "series.dat", data.str());
  const std::size_t n = s.runs.size();
  const std::size_t cols = n > 1 ? 2 : 1, rows = (n + cols - 1) / cols;
  gp << header(terminal, 1200, static_cast<int>(120 + 280 * rows), "memory_over_time.png");
  gp << "set multiplot layout " << rows << "," << cols << " title "
     << gp_string("Live / pending / in-use over time — " + title_name(scenario) + ", guard " + s.guard + ", semaphore " +
                  std::to_string(s.semaphore) + ", seed " + std::to_string(s.seed) +
                  (own_scale ? "\n(each panel has its own MiB scale: the policies' peaks differ more than 8×)" : ""))
     << " font ',13'\n";
  gp << "set xlabel 'time (ms)'\nset ylabel 'MiB'\nset key inside right top opaque horizontal\n";
  gp << "set xrange [0:" << fixed(std::max(max_ms, 1e-6) * 1.02, 6) << "]\nset yrange [0:"
     << fixed(std::max(max_mib, 1e-6) * 1.3, 4) << "]\n";
  for (std::size_t i = 0; i < n; ++i) {
    if (own_scale) gp << "set yrange [0:" << fixed(std::max(panel_max_mib[i], 1e-6) * 1.3, 4) << "]\n";
    gp << "set title " << gp_string("policy: " + s.runs[i].first) << "\n";
    gp << "plot 'series.dat' index " << i << " using 1:4 with steps lw 2 lc rgb '#000000' title 'in-use', \\\n"
       << "     '' index " << i << " using 1:2 with steps lw 1.5 lc rgb '#1f77b4' title 'live', \\\n"
       << "     '' index " << i << " using 1:3 with steps lw 1.5 lc rgb '#ff7f0e' title 'pending'\n";
  }
  gp << "unset multiplot\n";
  return gp.str();
}

}  // namespace

ReportOutcome render_plots(const fs::path& dir, const ReportInput& in, const std::string& gnuplot) {
  ReportOutcome out;
  auto models = build_models(in);
  if (models.empty()) {
    out.plot_note = "the sweep has no runs.";
    return out;
  }
  const std::string gp = shell_quote(gnuplot);
  if (run_shell(gp + " -e 'exit' >/dev/null 2>&1") != 0) {
    out.plot_note = "gnuplot (`" + gnuplot + "`) was not found or does not run; install Debian's gnuplot-nox "
                    "(scripts/setup.sh does) and re-run `allocsim report`. The tables above are complete.";
    return out;
  }
  std::string terminal = "pngcairo";
  if (run_shell(gp + " -e 'set terminal pngcairo' >/dev/null 2>&1") != 0) terminal = "png";

  const fs::path tmp = dir / (".plots-tmp-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) {
    out.plot_note = "cannot create " + tmp.string() + ": " + ec.message();
    return out;
  }
  const ScenarioModel& m = models.front();
  std::vector<std::pair<std::string, std::string>> scripts = {
      {"peak_vs_semaphore.png", peak_vs_semaphore(m, pick_plot_guard(in), tmp, terminal)},
      {"host_time_vs_peak.png", host_time_vs_peak(m, tmp, terminal)}};
  if (in.has_series && !in.series.runs.empty())
    scripts.push_back({"memory_over_time.png", memory_over_time(in.series, m.name, tmp, terminal)});
  std::vector<std::string> failed;
  for (const auto& [png, script] : scripts) {
    const std::string gp_file = png + ".gp";
    detail::write_whole_file(tmp / gp_file, script);
    int rc = run_shell("cd " + shell_quote(tmp.string()) + " && " + gp + " " + shell_quote(gp_file) + " 2>" +
                       shell_quote(png + ".log"));
    if (rc == 0 && fs::exists(tmp / png) && fs::file_size(tmp / png, ec) > 0) {
      fs::rename(tmp / png, dir / png, ec);
      if (!ec) {
        out.plots.push_back(png);
        continue;
      }
    }
    auto log = read_whole_file(tmp / (png + ".log")).value_or("");
    failed.push_back(png + (log.empty() ? "" : " (" + log.substr(0, log.find('\n')) + ")"));
  }
  if (!in.has_series) out.plot_note = "No memory-over-time plot: this folder has no memory_series.json (the sweep records it).";
  if (!failed.empty()) {
    std::string f;
    for (const auto& x : failed) f += (f.empty() ? "" : "; ") + x;
    out.plot_note += std::string(out.plot_note.empty() ? "" : " ") + "gnuplot failed for: " + f;
  }
  fs::remove_all(tmp, ec);
  return out;
}

}  // namespace allocsim::results::detail
