// simulate(): wires one run together: chooser, observers (race detector first), the sim device
// and the interpreter; then copies the outcome into a RunResult. Run-time conditions (deadlock,
// OOM, lifetime violations) are results; an unexpected internal exception becomes an error too,
// so callers never see a throw.
#include "allocsim/engine/simulate.h"

#include <exception>
#include <memory>

#include "allocsim/core/seeds.h"
#include "allocsim/engine/interpreter.h"
#include "allocsim/engine/sim_device.h"
#include "allocsim/race/race_detector.h"

namespace allocsim {

RunResult simulate(const Scenario& scenario, FreePolicy& policy, Guard& guard, const SimOptions& options) {
  RunResult r;
  r.scenario = scenario.name;
  r.policy = std::string(policy.name());
  r.guard = std::string(guard.name());
  r.semaphore = options.semaphore;
  r.seed = options.seed;
  r.race_detection = options.detect_races;

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
    config.params = options.params;
    config.semaphore = options.semaphore;
    config.max_findings = options.max_findings;
    config.max_events = options.max_events;
    SimDevice device(scenario.program, config, *chooser, std::move(observers), races.get());
    Interpreter interpreter(scenario.program, device, policy, guard);
    device.run(interpreter);
    device.fill(r);
    if (races) races->finish(r);
  } catch (const std::exception& e) {
    r.completed = false;
    r.error = std::string("internal error: ") + e.what();
  }
  return r;
}

}  // namespace allocsim
