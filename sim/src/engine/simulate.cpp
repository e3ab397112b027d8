// simulate(): wires one run together: chooser, observers (race detector first), the sim device
// and the interpreter; then writes the RunResult. Run-time conditions (deadlock, OOM, lifetime
// violations) are results; an unexpected internal exception becomes an error too, so callers never
// see a throw.
//
// This is the one writer of a RunResult: the engine (SimDevice::measures(), lifetime()) and the
// race detector (RaceDetector::finish()) produce their parts, and only write_result() puts them
// into it.
#include "allocsim/engine/simulate.h"

#include <exception>
#include <memory>
#include <optional>

#include "allocsim/core/seeds.h"
#include "allocsim/engine/interpreter.h"
#include "sim_device.h"
#include "allocsim/race/race_detector.h"

namespace allocsim {
namespace {

// Records in the order they were found, as far as the parts know it: lifetime findings during the
// run, races (the detector reports them at the end), then the leaks found when the run was over.
void write_result(RunResult& r, const SimDevice& device, const RaceReport* races, std::size_t max_findings) {
  static_cast<RunMeasures&>(r) = device.measures();
  const LifetimeFindings& lifetime = device.lifetime();
  for (const FindingKindNames& k : kFindingKindNames)
    if (is_lifetime(k.kind)) r.count(k.kind) = lifetime.count(k.kind);
  auto keep = [&](const std::vector<Finding>& records) {
    for (const Finding& f : records)
      if (r.findings.size() < max_findings) r.findings.push_back(f);
  };
  keep(lifetime.records());
  if (races) {
    r.races_latent = races->latent;
    r.races_manifest = races->manifest;
    keep(races->records);
  }
  keep(lifetime.end_records());
}

}  // namespace

RunResult simulate(const Scenario& scenario, FreePolicy& policy, Guard& guard, const SimOptions& options) {
  RunResult r;
  r.scenario = scenario.name;
  r.policy = std::string(policy.name());
  r.guard = std::string(guard.name());
  r.semaphore = options.semaphore;
  r.seed = options.seed;
  r.race_detection = options.detect_races;
  r.reference_max_allocated = scenario.reference_max_allocated;
  r.reference_max_reserved = scenario.reference_max_reserved;

  std::unique_ptr<Chooser> own_chooser;
  Chooser* chooser = options.chooser;
  if (!chooser) {
    own_chooser = make_seeded_chooser(seeds::run_draws(options.seed));
    chooser = own_chooser.get();
  }
  try {
    std::unique_ptr<RaceDetector> races;
    std::vector<Observer*> observers;
    if (options.detect_races) {
      RaceOptions ro;
      ro.max_findings = options.max_findings;
      ro.to_stderr = options.findings_to_stderr;
      races = std::make_unique<RaceDetector>(ro);
    }
    observers.insert(observers.end(), options.observers.begin(), options.observers.end());

    SimConfig config;
    config.device = scenario.device;
    config.platform = options.platform;
    config.spread = options.spread;
    config.params = options.params;
    config.semaphore = options.semaphore;
    config.max_findings = options.max_findings;
    config.max_events = options.max_events;
    config.holds = options.holds;
    config.trace = options.trace;
    SimDevice device(scenario.program, config, *chooser, std::move(observers), races.get());
    Interpreter interpreter(scenario.program, device, policy, guard);
    device.run(interpreter);
    if (options.hold_outcomes) *options.hold_outcomes = device.hold_outcomes();
    std::optional<RaceReport> report;
    if (races) report = races->finish(r.policy);
    write_result(r, device, report ? &*report : nullptr, options.max_findings);
    // A scenario that cannot support race claims (a trace replay with no device accesses) says so
    // in every run's warnings, where the summary, results.json and results.csv show it.
    if (!scenario.race_caveat.empty()) r.warnings.push_back(scenario.race_caveat);
  } catch (const std::exception& e) {
    r.completed = false;
    r.error = std::string("internal error: ") + e.what();
  }
  return r;
}

}  // namespace allocsim
