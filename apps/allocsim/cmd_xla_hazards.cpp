// `allocsim xla-hazards PROFILE [--json FILE]`: every allocation of a JAX/XLA profile that got bytes
// freed while device work that may use them was still queued or running, manifest or latent
// (docs/xla.md, "Hazard analysis"). Exit status: 0 report written (hazards or not; the report says),
// 2 bad input or an unwritable --json file (one message on stderr).
#include <fstream>
#include <iostream>

#include "allocsim/scenarios/xla_hazards.h"
#include "allocsim/scenarios/xla_profile.h"
#include "allocsim/scenarios/xla_usage.h"
#include "command.h"

namespace {

struct XlaHazardsArgs {
  std::string profile;
  std::string allocator{allocsim::xla::kDefaultAllocator};
  std::string json;
};

allocsim::cli::RunFn setup_xla_hazards(CLI::App& sub) {
  auto args = std::make_shared<XlaHazardsArgs>();
  sub.add_option("PROFILE", args->profile,
                 "a jax.profiler capture: *.xplane.pb, *.xplane.pb.gz, or the directory it was written to")
      ->required();
  sub.add_option("--allocator", args->allocator, "the allocator whose calls to analyse")
      ->capture_default_str();
  sub.add_option("--json", args->json, "also write the findings as JSON to this file");
  sub.footer(
      "Examples:\n"
      "  allocsim xla-hazards tests/data/jax_profiles/cnn.xplane.pb.gz\n"
      "  allocsim xla-hazards /tmp/trace --json hazards.json\n");
  return [args]() -> int {
    std::string text, json;
    try {
      const allocsim::xla::Profile profile = allocsim::xla::read_profile(args->profile, args->allocator);
      const allocsim::xla::Usage usage = allocsim::xla::map_usage(profile);
      const allocsim::xla::HazardReport report = allocsim::xla::find_hazards(profile, usage);
      text = allocsim::xla::format_hazards(profile, usage, report);
      if (!args->json.empty()) json = allocsim::xla::hazards_json(profile, usage, report);
    } catch (const allocsim::xla::ProfileError& e) {
      std::cerr << "allocsim: " << e.what() << "\n";
      return 2;
    }
    if (!args->json.empty()) {
      std::ofstream out(args->json, std::ios::binary);
      out << json;
      if (!out) {
        std::cerr << "allocsim: " << args->json << ": cannot write\n";
        return 2;
      }
    }
    std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
    std::cout.flush();
    return std::cout ? 0 : 2;
  };
}

}  // namespace

ALLOCSIM_COMMAND(
    "xla-hazards",
    "Find reuses of device memory freed while device work could still use it in a JAX/XLA profile",
    setup_xla_hazards, 71);
