// results/mpi/ is measured (results/mpi/run.sh) and committed, and its README is written from the
// measurement by summarize.py. This keeps the two together: the speed-up, the costs per job and
// the scaling model the README states are the ones bench_mpi.json gives (a re-measurement without
// re-running summarize.py fails here).
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

const std::filesystem::path kResults = std::filesystem::path(ALLOCSIM_SOURCE_DIR) / "results" / "mpi";

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

TEST_CASE("results/mpi: the README states what bench_mpi.json measured") {
  const std::string readme = read(kResults / "README.md");
  const boost::json::value bench = boost::json::parse(read(kResults / "bench_mpi.json"));
  std::map<std::string, boost::json::object> runs;
  for (const boost::json::value& b : bench.at("benchmarks").as_array())
    runs[std::string(b.at("name").as_string())] = b.as_object();
  auto number = [&](const std::string& run, const char* key) { return runs.at(run).at(key).to_number<double>(); };

  const std::string one = "BM_Sweep/one_rank/iterations:2/real_time", all = "BM_Sweep/all_ranks/iterations:2/real_time";
  const double speedup = number(one, "real_time") / number(all, "real_time");
  const int ranks = int(number(all, "ranks"));
  CHECK(ranks >= 2);
  CHECK(number(one, "jobs") >= 1000);
  CHECK_THAT(readme, Catch::Contains("**Speed-up on " + std::to_string(ranks) + " ranks: " + fixed(speedup, 2) + "x**"));

  const double c_record = number("BM_SweepPerJob/real_time", "collector_cpu_us_per_job");
  const double c_mpi = number("BM_Dispatch/mpi/real_time", "collector_cpu_us_per_job");
  CHECK(number("BM_Dispatch/mpi/real_time", "rank0_share") == 0);  // the MPI path alone
  CHECK_THAT(readme, Catch::Contains("Measured: `c` = " + fixed(c_record, 1) + " us (record) + " + fixed(c_mpi, 1) +
                                     " us (MPI dispatch) = **" + fixed(c_record + c_mpi, 1) + " us**"));
  const double need_ms = 100 * 32 * (c_record + c_mpi) / 1e3;
  CHECK_THAT(readme, Catch::Contains("**" + fixed(need_ms, 0) + " ms**"));
}
