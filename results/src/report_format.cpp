// Formatting helpers for report.md (see report_format.h).
#include "report_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "allocsim/results/sample_summary.h"

namespace allocsim::results::detail {

std::string fixed(double v, int decimals) {
  if (std::fabs(v) < 0.5 * std::pow(10.0, -decimals)) v = 0;  // no "-0.00"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string spread(const Stat& s, double unit, int decimals) {
  std::string out = fixed(s.mean / unit, decimals);
  std::string lo = fixed(s.min / unit, decimals), hi = fixed(s.max / unit, decimals);
  if (lo != hi) out += " [" + lo + "–" + hi + "]";
  return out;
}

std::string count_spread(const Stat& s) {
  const bool whole = s.mean == static_cast<double>(static_cast<long long>(s.mean));
  std::string out = fixed(s.mean, whole ? 0 : 1);
  if (s.min != s.max) out += " [" + fixed(s.min, 0) + "–" + fixed(s.max, 0) + "]";
  return out;
}

std::string signed_percent(double fraction) {
  std::string v = fixed(fraction * 100, 1);
  return (v[0] == '-' ? v : "+" + v) + "%";
}

std::string signed_us(double ns) {
  std::string v = fixed(ns / 1000, 1);
  return (v[0] == '-' ? v : "+" + v) + " µs";
}

std::string rate_text(int k, int n) {
  const auto [lo, hi] = binomial_interval(k, n);
  return fixed(n > 0 ? 100.0 * k / n : 0, 1) + "% [" + fixed(100 * lo, 1) + ", " + fixed(100 * hi, 1) + "]";
}

namespace {

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;  // count UTF-8 code points
  return n;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  std::string fill(width - std::min(width, display_width(s)), ' ');
  return right ? fill + s : s + fill;
}

}  // namespace

std::string markdown_table(const std::vector<std::string>& header, const std::vector<bool>& right_align,
                           const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size(), 3);
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = std::max(width[i], display_width(header[i]));
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], display_width(r[i]));
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    out += "|";
    for (std::size_t i = 0; i < width.size(); ++i)
      out += " " + pad(i < cells.size() ? cells[i] : "", width[i], right_align[i]) + " |";
    out += "\n";
  };
  line(header);
  out += "|";
  for (std::size_t i = 0; i < width.size(); ++i)
    out += (right_align[i] ? " " + std::string(width[i] - 1, '-') + ": |" : " " + std::string(width[i], '-') + " |");
  out += "\n";
  for (const auto& r : rows) line(r);
  return out;
}

}  // namespace allocsim::results::detail
