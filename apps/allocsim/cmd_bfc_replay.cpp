// `allocsim bfc-replay TRACE`: replay a tsl_bfc oracle trace on the BFC pool model and print the
// oracle's output format, byte for byte (tests/data/tsl_bfc/README.md). The whole trace is
// parsed before anything is printed: bad input gives one "allocsim: TRACE:LINE: message" on
// stderr and exit status 2, with nothing on stdout.
#include <iostream>

#include "allocsim/pool/bfc_trace.h"
#include "command.h"

namespace {

allocsim::cli::RunFn setup_bfc_replay(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  sub.add_option("TRACE", *path, "oracle trace file (format: tests/data/tsl_bfc/README.md)")->required();
  return [path]() -> int {
    std::string output;
    try {
      output = allocsim::replay_bfc_trace(allocsim::load_bfc_trace(*path));
    } catch (const allocsim::BfcTraceError& e) {
      std::cerr << "allocsim: " << e.what() << "\n";
      return 2;
    }
    std::cout.write(output.data(), static_cast<std::streamsize>(output.size()));
    std::cout.flush();
    return std::cout ? 0 : 2;
  };
}

}  // namespace

ALLOCSIM_COMMAND("bfc-replay", "Replay a tsl::BFCAllocator oracle trace on the BFC pool model", setup_bfc_replay, 60);
