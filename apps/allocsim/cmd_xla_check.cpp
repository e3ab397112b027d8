// `allocsim xla-check PROFILE`: replay a JAX/XLA profile's device allocator calls on the BFC pool
// model and compare every event with the real allocator's record (docs/xla.md). Exit status: 0 all
// events agree, 1 a mismatch (the report shows the first one), 2 bad input (one message on
// stderr, nothing on stdout).
#include <iostream>

#include "allocsim/scenarios/xla_check.h"
#include "allocsim/scenarios/xla_profile.h"
#include "command.h"

namespace {

struct XlaCheckArgs {
  std::string profile;
  std::string allocator{allocsim::xla::kDefaultAllocator};
  std::size_t context = 3;
  std::string growth = "auto";
};

allocsim::xla::Growth growth_of(const std::string& word) {
  if (word == "on") return allocsim::xla::Growth::kOn;
  if (word == "off") return allocsim::xla::Growth::kOff;
  return allocsim::xla::Growth::kInfer;
}

allocsim::cli::RunFn setup_xla_check(CLI::App& sub) {
  auto args = std::make_shared<XlaCheckArgs>();
  sub.add_option("PROFILE", args->profile,
                 "a jax.profiler capture: *.xplane.pb, *.xplane.pb.gz, or the directory it was written to")
      ->required();
  sub.add_option("--allocator", args->allocator, "the allocator whose calls to check")->capture_default_str();
  sub.add_option("--growth", args->growth,
                 "whether the pool grows in regions: auto (inferred from the addresses), on or off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  sub.add_option("--context", args->context, "events shown either side of a mismatch")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  sub.footer(
      "Examples:\n"
      "  allocsim xla-check tests/data/jax_profiles/mlp.xplane.pb.gz\n"
      "  allocsim xla-check /tmp/trace        # the directory given to jax.profiler.start_trace\n"
      "  allocsim xla-check grow.xplane.pb --growth on   # captured with "
      "XLA_PYTHON_CLIENT_PREALLOCATE=false\n");
  return [args]() -> int {
    std::string report;
    bool matched = false;
    try {
      const allocsim::xla::Profile profile = allocsim::xla::read_profile(args->profile, args->allocator);
      const allocsim::xla::CheckResult result =
          allocsim::xla::check_profile(profile, growth_of(args->growth));
      report = allocsim::xla::format_check(profile, result, args->context);
      matched = result.matched();
    } catch (const allocsim::xla::ProfileError& e) {
      std::cerr << "allocsim: " << e.what() << "\n";
      return 2;
    }
    std::cout.write(report.data(), static_cast<std::streamsize>(report.size()));
    std::cout.flush();
    if (!std::cout) return 2;
    return matched ? 0 : 1;
  };
}

}  // namespace

ALLOCSIM_COMMAND("xla-check", "Replay a JAX/XLA profile's BFC allocator calls and compare every event",
                 setup_xla_check, 70);
