// Sweep progress meter (see progress.h).
#include "allocsim/results/progress.h"

#include <cstdio>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace allocsim::results {

ProgressMeter::ProgressMeter(std::size_t total, std::size_t already_done, std::ostream& out, Style style,
                             std::string what, std::string unit)
    : total_(total), done_(already_done), started_with_(already_done), out_(out), style_(style),
      what_(std::move(what)), unit_(std::move(unit)),
      start_(Clock::now()), last_draw_(start_ - std::chrono::seconds(10)) {
  last_decile_ = total ? static_cast<int>(already_done * 10 / total) : 10;
  if (style_ == Style::Off) return;
  if (style_ == Style::Lines || already_done > 0) {
    std::lock_guard lock(mu_);
    if (style_ == Style::Lines)
      out_ << what_ << ": " << total_ << " " << unit_ << ", " << already_done << " already done\n" << std::flush;
    else
      draw(false);
  }
}

bool ProgressMeter::stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

std::string ProgressMeter::format_duration(double seconds) {
  if (seconds < 0 || seconds != seconds) return "?";
  long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%lds", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

void ProgressMeter::tick() {
  if (style_ == Style::Off) return;
  std::lock_guard lock(mu_);
  ++done_;
  auto now = Clock::now();
  if (style_ == Style::Bar) {
    if (now - last_draw_ >= std::chrono::milliseconds(100) || done_ == total_) draw(false);
    return;
  }
  if (done_ == total_) return;  // finish() prints the last line
  int decile = total_ ? static_cast<int>(done_ * 10 / total_) : 10;
  if (decile != last_decile_ || now - last_draw_ >= std::chrono::seconds(5)) {
    last_decile_ = decile;
    draw(false);
  }
}

void ProgressMeter::finish() {
  if (style_ == Style::Off) return;
  std::lock_guard lock(mu_);
  draw(true);
}

void ProgressMeter::draw(bool final_line) {
  last_draw_ = Clock::now();
  double elapsed = std::chrono::duration<double>(last_draw_ - start_).count();
  std::size_t ran = done_ - started_with_;
  double rate = elapsed > 0 ? ran / elapsed : 0;
  std::ostringstream line;
  line << done_ << "/" << total_;
  if (total_) line << " (" << done_ * 100 / total_ << "%)";
  char rate_buf[32];
  std::snprintf(rate_buf, sizeof rate_buf, "%.1f", rate);
  line << "  " << rate_buf << " " << unit_ << "/s";
  if (final_line) line << "  took " << format_duration(elapsed);
  else line << "  ETA " << (rate > 0 ? format_duration((total_ - done_) / rate) : std::string("?"));
  if (style_ == Style::Bar) {
    constexpr int kWidth = 30;
    int filled = total_ ? static_cast<int>(done_ * kWidth / total_) : kWidth;
    out_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << line.str()
         << "   " << (final_line ? "\n" : "") << std::flush;
  } else {
    out_ << what_ << ": " << line.str() << "\n" << std::flush;
  }
}

}  // namespace allocsim::results
