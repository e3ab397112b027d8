// (placeholder API, to be completed by the race-detector work: issue 4)
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "allocsim/core/observer.h"
#include "allocsim/core/result.h"

namespace allocsim {

struct RaceOptions {
  std::size_t max_findings = 20;  // records kept (counts are always complete)
  bool to_stderr = false;         // print each finding in a readable two-line form
};

/// Latent races (happens-before, vector clocks over host, callback thread, streams) and manifest
/// corruption (timeline shadow memory) from the Observer stream of one run.
class RaceDetector : public Observer {
 public:
  explicit RaceDetector(RaceOptions options = {});
  ~RaceDetector() override;
  /// Adds races_latent, races_manifest and finding records to `result`.
  void finish(RunResult& result);
};

}  // namespace allocsim
