// Progress of a long run on stderr (a sweep's jobs, `run --samples`' samples): a redrawn bar (done/total, rate, ETA) on a terminal, plain lines
// (every 10% and at most every few seconds) otherwise, so logs stay short. Only what this process
// ran counts toward the rate; jobs resumed from DIR count as done from the start. Wall-clock
// times appear here and nowhere in the sweep's files, which stay deterministic.
#pragma once
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <mutex>
#include <string>

namespace allocsim::results {

class ProgressMeter {
 public:
  enum class Style { Bar, Lines, Off };
  /// `what` prefixes each plain line ("sweep"), `unit` names what is counted ("jobs").
  ProgressMeter(std::size_t total, std::size_t already_done, std::ostream& out, Style style,
                std::string what = "sweep", std::string unit = "jobs");
  /// One more job finished. Thread-safe.
  void tick();
  /// Final line (bar: completes it and ends the line).
  void finish();

  /// The style a `--progress` value names: "bar", "lines", "off", or "auto" (a bar on a terminal,
  /// lines otherwise). Anything else is "off" (the CLI checks the value).
  static Style style_named(const std::string& name) {
    if (name == "bar" || (name == "auto" && stderr_is_tty())) return Style::Bar;
    if (name == "lines" || name == "auto") return Style::Lines;
    return Style::Off;
  }

  /// "1:05" / "12s": for the bar and lines (exposed for tests).
  static std::string format_duration(double seconds);
  /// Whether stderr is a terminal.
  static bool stderr_is_tty();

 private:
  void draw(bool final_line);
  using Clock = std::chrono::steady_clock;
  std::mutex mu_;
  std::size_t total_, done_, started_with_;
  std::ostream& out_;
  Style style_;
  std::string what_, unit_;
  Clock::time_point start_, last_draw_;
  int last_decile_ = -1;
};

}  // namespace allocsim::results
