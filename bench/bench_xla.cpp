// Reading and checking a real JAX/XLA profile (`allocsim xla-check`), split into its phases, on
// the largest committed profile (cnn: 5 MB gzip, 11 MB XSpace, 5,381 allocator events):
//  - BM_XlaReadBytes: the file read and gunzip (read_profile_bytes);
//  - BM_XlaParse: protobuf parse and extraction of events, device ops and spans (parse_profile);
//  - BM_XlaCheck: the replay on BfcPool with the comparison of every event (check_profile);
//  - BM_XlaReadAndCheck: all of it plus the report, as the command runs it.
// Target (issue 16): read + check under 2 s on the project's 2-core machine.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "allocsim/scenarios/xla_check.h"
#include "allocsim/scenarios/xla_profile.h"

namespace {

const std::string kProfile = std::string(ALLOCSIM_TEST_DATA_DIR) + "/jax_profiles/cnn.xplane.pb.gz";

// Skips the benchmark (instead of throwing from the reader) when the data is missing.
bool profile_present(benchmark::State& state) {
  if (std::filesystem::exists(kProfile)) return true;
  state.SkipWithError(("missing " + kProfile).c_str());
  return false;
}

void BM_XlaReadBytes(benchmark::State& state) {
  if (!profile_present(state)) return;
  for (auto _ : state) benchmark::DoNotOptimize(allocsim::xla::read_profile_bytes(kProfile));
}

void BM_XlaParse(benchmark::State& state) {
  if (!profile_present(state)) return;
  const std::string bytes = allocsim::xla::read_profile_bytes(kProfile);
  std::size_t events = 0;
  for (auto _ : state) events = allocsim::xla::parse_profile(bytes, kProfile).events.size();
  state.counters["xspace_bytes"] = static_cast<double>(bytes.size());
  state.counters["allocator_events"] = static_cast<double>(events);
}

void BM_XlaCheck(benchmark::State& state) {
  if (!profile_present(state)) return;
  const allocsim::xla::Profile profile = allocsim::xla::read_profile(kProfile);
  bool matched = false;
  for (auto _ : state) matched = allocsim::xla::check_profile(profile).matched();
  if (!matched) state.SkipWithError("the profile did not match: the timing is of a partial replay");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * profile.events.size()));
}

void BM_XlaReadAndCheck(benchmark::State& state) {
  if (!profile_present(state)) return;
  for (auto _ : state) {
    const allocsim::xla::Profile profile = allocsim::xla::read_profile(kProfile);
    benchmark::DoNotOptimize(allocsim::xla::format_check(profile, allocsim::xla::check_profile(profile)));
  }
}

}  // namespace

BENCHMARK(BM_XlaReadBytes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_XlaParse)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_XlaCheck)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_XlaReadAndCheck)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
