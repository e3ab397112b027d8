// See host_pace_workload.h.
#include "allocsim/hw/host_pace_workload.h"

#include <stdexcept>

#include "allocsim/engine/execution_units.h"
#include "allocsim/hw/sim_prediction.h"
#include "allocsim/results/resolve.h"

namespace allocsim::hw {

Scenario calibration_workload(bool pace) {
  RunConfig run;
  run.scenario = kCalibrationWorkload;
  if (pace) run.sets.set("steps", kPaceWorkloadSteps);
  return load_for_run(run);
}

double host_pace_level(const PlatformProfile& profile, const PlatformSpread& spread, int runs) {
  if (!(spread.host_pace_reference_ns > 0))
    throw std::invalid_argument("the platform file records no host_pace_reference_ns (calibrated before it)");
  const Scenario workload = calibration_workload(true);
  PredictionSetup setup;
  setup.policy = "immediate";
  setup.guard = "none";
  setup.semaphore = kPaceWorkloadSemaphore;
  setup.params = workload.params;
  setup.runs = runs;
  PlatformSpread costs = spread;
  costs.host_pace.clear();  // the level is measured against the costs alone
  costs.host_pace_level = 1;
  const SimPrediction p = predict(workload, setup, profile, costs, execution_units(workload.program));
  if (!(p.host_busy_ns > 0)) throw std::invalid_argument("the host-pace workload took no simulated host time");
  return spread.host_pace_reference_ns / p.host_busy_ns;
}

}  // namespace allocsim::hw
