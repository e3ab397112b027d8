// RaceDetector: stub while the real detector is built (issue 4). Links; finds nothing yet.
#include "allocsim/race/race_detector.h"

namespace allocsim {

RaceDetector::RaceDetector(RaceOptions options) { (void)options; }
RaceDetector::~RaceDetector() = default;
void RaceDetector::finish(RunResult& result) { (void)result; }

}  // namespace allocsim
