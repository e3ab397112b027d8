// The schedule file of `allocsim explore` (docs/explore.md): which run it belongs to and the
// delays that force it. One parser and one writer for every reader of the file (the simulator's
// replay, `allocsim-hw validate --schedule`), so a witness means the same thing on both sides.
//
// Locators name steps by agent: host op N (Program::ops index, the Interpreter's position), the
// J-th device op launched on a named stream (from 0, in launch order, within one run of the host
// program), or the C-th host callback enqueued (from 1). Only the file's shape is checked here;
// whether a stream name exists in the program is the reader's to check (check_schedule_streams).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "allocsim/core/program.h"
#include "allocsim/core/types.h"
#include "allocsim/engine/step_schedule.h"

namespace allocsim {

/// A schedule file that cannot be used; the message names the file and the offending entry.
class ScheduleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The schedule file format this code reads and writes ("allocsim_schedule": 1).
inline constexpr int kScheduleVersion = 1;

struct StepLocator {
  enum class Agent { Host, Stream, Callback };
  Agent agent = Agent::Host;
  std::string stream;      // Agent::Stream only: the program's stream name
  std::int64_t index = 0;  // host op N, stream op J (from 0), callback C (from 1)

  friend bool operator==(const StepLocator&, const StepLocator&) = default;
};

struct Delay {
  StepLocator hold, until;
  std::optional<TimeNs> held_ns;  // how long the simulator held the step (information only)

  friend bool operator==(const Delay&, const Delay&) = default;
};

struct Schedule {
  std::string scenario, policy, guard;
  int semaphore = 0;
  std::uint64_t seed = 0;
  std::map<std::string, std::string> set;  // the --set values the run used, as typed
  std::vector<Delay> delays;
  std::string outcome_json;  // the "outcome" object as compact JSON text; empty: none

  friend bool operator==(const Schedule&, const Schedule&) = default;
};

/// Parses a schedule file's text. Throws ScheduleError ("SOURCE: what is wrong") for bad JSON, a
/// missing or mistyped field, another version, an unknown agent, a negative op or callback 0.
Schedule parse_schedule(std::string_view text, const std::string& source_name);

/// The file's text: keys in a fixed order, two-space indentation, one delay per entry, ending in a
/// newline. parse_schedule(write_schedule(s)) == s.
std::string write_schedule(const Schedule& s);

/// A locator as it reads in messages and reports: "host op 3", "stream compute op 2", "callback 1".
std::string describe(const StepLocator& l);

/// Throws ScheduleError naming the delay and the program's streams when a stream locator's stream
/// is not one of the program's (callback streams are the backend's, never a locator's).
void check_schedule_streams(const Schedule& s, const Program& program, const std::string& source_name);

/// The program's index of stream `name`, or kNoStream.
StreamId stream_index(const Program& program, std::string_view name);

/// The file's delays as the sim engine's holds (engine/step_schedule.h), streams by index.
/// Precondition: check_schedule_streams passed.
std::vector<StepHold> holds_of(const Schedule& s, const Program& program);
/// A hold's locator, streams by name.
StepLocator locator_of(const StepRef& ref, const Program& program);

}  // namespace allocsim
