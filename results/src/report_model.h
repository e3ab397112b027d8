// The report's view of a sweep (private to results/src): runs grouped by (scenario, policy,
// guard, semaphore) with mean / min / max over seeds (a sampled sweep: over samples, with each
// point's sample summary), in the sweep's own order, plus the derived facts the tables, plots and
// verdict share (race-free options, the `immediate` baseline).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "allocsim/results/report.h"

namespace allocsim::results::detail {

struct Stat {
  double mean = 0, min = 0, max = 0;
  int n = 0;
  void add(double v);
  void finish();  // turns the running sum into the mean
  double sum_ = 0;
};

/// One (scenario, policy, guard, semaphore) over its seeds.
struct Cell {
  Stat latent, manifest, peak_in_use, peak_live, peak_pending, peak_pool, host_stall, makespan, callbacks,
      ooms, fallbacks;
  // Host time blocked, by cause (RunMeasures). `policy_blocked` = policy/guard waits + OOM waits:
  // the part a free policy causes, which the verdict ranks on.
  Stat blocked_policy, blocked_oom, blocked_semaphore, blocked_sync, policy_blocked, device_idle;
  int runs = 0, racy_runs = 0, incomplete_runs = 0;
  bool racy() const { return racy_runs > 0; }
  // A sampled sweep: the point's summary over its samples (its runs above are those samples).
  std::optional<SampleSummary> sampled;
  // Every statistic, one list for finishing them and for comparing two cells.
  std::vector<Stat*> stats() { return stats_of(*this); }
  std::vector<const Stat*> stats() const { return stats_of(*this); }

 private:
  template <class C>  // Cell or const Cell
  static auto stats_of(C& c) -> std::vector<decltype(&c.latent)> {
    return {&c.latent,         &c.manifest,       &c.peak_in_use, &c.peak_live,         &c.peak_pending,
            &c.peak_pool,      &c.host_stall,     &c.makespan,    &c.callbacks,         &c.ooms,
            &c.fallbacks,      &c.blocked_policy, &c.blocked_oom, &c.blocked_semaphore, &c.blocked_sync,
            &c.policy_blocked, &c.device_idle};
  }
};

struct Option {  // a (policy, guard) pair over all semaphores and seeds of one scenario
  std::string policy, guard;
  bool race_free = true;   // no latent/manifest race in any run, and every run completed
  int racy_runs = 0, incomplete_runs = 0, runs = 0;
  std::uint64_t ooms = 0;
};

struct ScenarioModel {
  std::string name;
  std::vector<std::string> policies, guards;  // sweep order, then any extra seen in the runs
  std::vector<int> semaphores;                // ascending
  std::map<std::tuple<std::string, std::string, int>, Cell> cells;
  std::vector<Option> options;                // policy-major order
  // PyTorch traces: the trace's own max_memory_allocated / max_memory_reserved (largest seen in
  // the scenario's runs; 0 = the scenario has none, and the report shows no PyTorch columns)
  std::uint64_t reference_max_allocated = 0, reference_max_reserved = 0;
  int executions = 0;  // begin_execution ops in the program (SweepSpec::executions; 0 = unknown)
  int samples = 0;     // samples per point of a sampled sweep (SweepSpec::samples); 0 = unsampled
  // Some run reports host blocking by cause; false = every cause is 0 in every run, i.e. results
  // from an engine that did not measure it (any real run blocks at least in its final sync).
  bool blocking_measured = false;
  bool has_reference() const { return reference_max_reserved > 0; }
  const Cell* cell(const std::string& p, const std::string& g, int s) const;
  const Option* option(const std::string& p, const std::string& g) const;
  int reference_semaphore() const { return semaphores.empty() ? 0 : semaphores.back(); }
  /// The smallest swept capacity from which every larger one gives each option the same table
  /// row (every statistic equal); nullopt when the largest two differ or fewer than two were swept.
  std::optional<int> identical_from() const;
};

std::vector<ScenarioModel> build_models(const ReportInput& in);

constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr const char* kBaselinePolicy = "immediate";

}  // namespace allocsim::results::detail
