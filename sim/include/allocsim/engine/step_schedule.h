// What a schedule explorer gives the sim engine and gets back (docs/explore.md): holds, which
// delay one step until another agent's step is done, and the trace of the run's steps with what
// each touched and what it happened after. The engine applies the holds; the explorer
// (results/src/explore*.cpp) decides them from the traces.
#pragma once
#include <cstdint>
#include <vector>

#include "allocsim/core/types.h"

namespace allocsim {

/// Who takes a step: the host thread, one stream (its device ops), or the callback thread.
enum class StepAgent : std::uint8_t { Host, Stream, Callback };

/// A step by its place in the program, the same on every schedule of it (docs/explore.md):
/// host op `index` (Program::ops); the `index`-th device op launched on `stream` (from 0); the
/// `index`-th host callback enqueued (from 1).
struct StepRef {
  StepAgent agent = StepAgent::Host;
  StreamId stream = kNoStream;  // Stream only
  std::uint64_t index = 0;
  friend bool operator==(const StepRef&, const StepRef&) = default;
  friend auto operator<=>(const StepRef&, const StepRef&) = default;
};

/// A delay: `hold` does not start until `until` is done (or nothing else can happen).
struct StepHold {
  StepRef hold, until;
  friend bool operator==(const StepHold&, const StepHold&) = default;
};

/// What became of one hold in a run.
struct HoldOutcome {
  bool reached = false;        // the held step came up
  bool waited = false;         // and `until` was not done yet, so it waited
  bool quiescence = false;     // the wait ended because nothing else could happen
  TimeNs held_ns = 0;          // how long it waited
};

/// A shared object two steps may both touch; two steps of different agents conflict when they
/// touch one object and one of them changes it (docs/explore.md, "pruning").
struct StepObject {
  enum class Kind : std::uint8_t { Pool, Memory, Stream, Semaphore, Mutex };
  Kind kind = Kind::Pool;
  bool write = false;
  std::uint64_t id = 0;          // pool, stream, mutex id; Memory: first byte
  std::uint64_t end = 0;         // Memory: one past the last byte
};

/// One step of a traced run.
struct StepRecord {
  StepRef ref;
  TimeNs start = 0, end = 0;
  std::uint32_t agent = 0;                 // the explorer's agent number (host 0, callback 1, stream s: 2 + s)
  std::uint32_t epoch = 0;                 // this step's own entry in its agent's vector clock
  std::vector<std::uint32_t> clock_end;    // the agent's vector clock when the step was done
  /// The same, with the pool's lock as one more edge (each pool call after the one before it):
  /// what orders two accesses to the same bytes under the pool's current order of calls, which
  /// the explorer varies through the pool's own conflicts instead.
  std::vector<std::uint32_t> data_clock_end;
  std::vector<StepObject> touched;
};

/// The steps of a run in the order they started (the explorer's positions).
struct StepTrace {
  std::vector<StepRecord> steps;
};

}  // namespace allocsim
