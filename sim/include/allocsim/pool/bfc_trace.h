// The tsl_bfc oracle's trace format and its replay (tests/data/tsl_bfc/README.md).
//
// A trace is parsed and validated whole before anything runs, so a bad line never leaves half an
// output behind: `allocsim bfc-replay` prints either the complete oracle-format output or one
// error naming the file and line. Ids are mapped to dense slots at parse time, so a replay (and
// the benchmark) indexes arrays instead of hashing ids.
#pragma once
#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include "allocsim/pool/bfc_pool.h"

namespace allocsim {

/// Bad trace input: what() is "SOURCE:LINE: message" (or "SOURCE: message" without a line).
class BfcTraceError : public std::runtime_error {
 public:
  BfcTraceError(const std::string& source, std::size_t line, const std::string& message);
  std::size_t line() const { return line_; }

 private:
  std::size_t line_;
};

struct BfcTraceOp {
  enum class Kind : std::uint8_t { kAlloc, kFree };
  Kind kind;
  std::uint32_t slot;           // dense id slot
  std::uint64_t bytes = 0;      // kAlloc only
  std::uint64_t alignment = 0;  // kAlloc only; 0 = the harness default (64, raised to 256)
};

struct BfcTrace {
  BfcOptions options;            // from the header line
  std::string description;       // line 2, without "# "
  std::vector<BfcTraceOp> ops;
  std::vector<std::int64_t> ids;  // slot -> id as written in the trace
  std::size_t alloc_ops = 0, free_ops = 0;
};

/// Parses and validates a whole trace. Throws BfcTraceError (source = name for messages).
BfcTrace parse_bfc_trace(std::istream& in, const std::string& source);
/// Reads `path`; throws BfcTraceError if it cannot be read or parsed.
BfcTrace load_bfc_trace(const std::string& path);

/// Replays `trace` on a fresh BfcPool over a FakeSubAllocator based at 0x100000000 (as the
/// oracle harness) and returns the oracle's output text: region and allocation lines in order,
/// then the stat lines and the final chunk map.
std::string replay_bfc_trace(const BfcTrace& trace);

}  // namespace allocsim
