// validate.json schema and the both-or-neither file writer.
#include <catch2/catch.hpp>

#include <boost/json.hpp>
#include <filesystem>

#include "allocsim/hw/validate_report.h"
#include "allocsim/results/atomic_file.h"

using namespace allocsim;

static hw::ValidateReport sample() {
  hw::ValidateReport r;
  r.device = "NVIDIA H200";
  r.scenario = "seed-repro";
  r.command = "allocsim-hw validate seed-repro --trials 2 --out x";
  r.semaphore = 1;
  hw::ValidateRun run;
  run.policy = "immediate";
  run.guard = "none";
  run.trials = 2;
  run.aliased = 2;
  run.corrupted = 1;
  run.peak_bytes_in_use = 12582912;
  run.host_ns_per_free = 250.5;
  run.wall_ns = 123456;
  run.sim.latent = 3;
  run.sim.manifest = 1;
  run.sim.manifest_rate = 0.5;
  run.sim.peak_bytes_in_use = 12582912;
  r.runs.push_back(run);
  return r;
}

TEST_CASE("validate.json has the issue's schema") {
  auto v = boost::json::parse(hw::validate_json(sample())).as_object();
  for (const char* k : {"device", "scenario", "command", "runs"}) CHECK(v.contains(k));
  auto run = v["runs"].as_array().at(0).as_object();
  for (const char* k : {"policy", "guard", "trials", "aliased", "corrupted", "peak_bytes_in_use", "host_ns_per_free",
                        "wall_ns", "sim"})
    CHECK(run.contains(k));
  CHECK(run["corrupted"].as_int64() == 1);
  CHECK(run["host_ns_per_free"].as_double() == Approx(250.5));
  auto sim = run["sim"].as_object();
  for (const char* k : {"latent", "manifest", "peak_bytes_in_use"}) CHECK(sim.contains(k));
  CHECK(sim["latent"].to_number<std::uint64_t>() == 3);
}

TEST_CASE("validate.md lists each run with host cost per free") {
  std::string md = hw::validate_markdown(sample());
  CHECK(md.find("| immediate | none | 2 | 2 | 1 | 50% | 3 | 50% | 12582912 | 12582912 | 250 |") != std::string::npos);
}

TEST_CASE("write_validate_files writes both files, or none into an unwritable place") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "allocsim_hw_validate_test";
  fs::remove_all(dir);
  hw::write_validate_files(dir.string(), sample());
  CHECK(fs::exists(dir / "validate.json"));
  CHECK(fs::exists(dir / "validate.md"));
  fs::remove_all(dir);
  // A regular file where the folder should be: clean error, nothing written.
  write_file_atomically(dir.string(), "x");
  CHECK_THROWS(hw::write_validate_files(dir.string(), sample()));
  fs::remove(dir);
}
