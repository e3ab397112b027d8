// `allocsim report DIR`: turns a sweep's results.json (and, when the sweep recorded them,
// memory_series.json) into DIR/report.md plus PNG plots rendered by gnuplot.
//
// Everything in report.md is computed from the data: per-scenario tables (mean over seeds with
// the min–max spread), peak in-use by semaphore capacity, and a verdict that ranks the race-free
// (policy, guard) options by device memory (peak reserved over every pool, then peak in-use) and by
// the host blocking the policy causes (then makespan) against `immediate` with the same guard and
// semaphore, and says what bounds the growth with the semaphore capacity. Plots are optional:
// without gnuplot (or with plots disabled) the report still has every table and says why the plots
// are missing. A sampled sweep (sweep_sampled.h) adds each point's manifest-corruption rate with its
// 95% interval wherever the report shows corruption, and the distributions over the samples.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "allocsim/core/result.h"
#include "allocsim/results/sweep.h"

namespace allocsim::results {

/// results.json missing or malformed (exit status 2 in the CLI).
struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One sample of the memory counters of one run (bytes; time in ns).
struct MemorySample {
  std::int64_t t = 0;
  std::uint64_t live = 0, pending = 0, in_use = 0;
};

/// live / pending / in-use over time for one run per policy (one guard, semaphore and seed).
struct MemorySeries {
  std::string guard;
  int semaphore = 0;
  std::uint64_t seed = 0;
  std::vector<std::pair<std::string, std::vector<MemorySample>>> runs;  // policy -> samples
};

struct ReportInput {
  SweepSpec spec;
  std::vector<RunResult> runs;
  bool has_series = false;
  MemorySeries series;
  std::vector<SampleSummary> samples;  // a sampled sweep's points (results.json "samples"); else empty
};

struct ReportOptions {
  bool plots = true;           // false: tables only (golden tests); ALLOCSIM_NO_PLOTS=1 does the same
  std::string gnuplot = "gnuplot";  // program name or path; ALLOCSIM_GNUPLOT overrides
};

struct ReportOutcome {
  std::vector<std::string> plots;  // PNG file names written into DIR
  std::string plot_note;           // why there are no plots, when there are none
};

/// Reads DIR/results.json (+ DIR/memory_series.json if present). Throws ReportError.
ReportInput read_report_input(const std::filesystem::path& dir);

/// Writes DIR/report.md, DIR/headline.md and the plots. Throws ReportError / std::runtime_error
/// (write failures).
ReportOutcome write_report(const std::filesystem::path& dir, const ReportOptions& options = {});

/// The markdown text, given which plots exist (exposed for tests).
std::string render_report_markdown(const ReportInput& in, const ReportOutcome& plots);

/// DIR/headline.md: the verdict sentences a README quotes (racy options, least device memory,
/// least host time, the largest growth with the semaphore and what bounds it), for the first
/// scenario; the same sentences as report.md's verdict, rendered from the same structure.
std::string render_headline_markdown(const ReportInput& in);

/// The guard the per-policy plots fix: the one under which most policies are race-free in every
/// run (ties: earlier in the sweep's guard order).
std::string pick_plot_guard(const ReportInput& in);

/// memory_series.json text, and the sampler the sweep uses to record it: at most `max_points`
/// samples per run, keeping each time bucket's highest in-use sample (so peaks survive).
std::string memory_series_json(const MemorySeries& s);
std::vector<MemorySample> downsample(const std::vector<MemorySample>& samples, std::size_t max_points);

}  // namespace allocsim::results
