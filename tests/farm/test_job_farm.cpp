// The job farm on threads (results/job_farm.h): every job's payload reaches `collect` once, with
// its input; a job that throws or crashes is reported with its index while the others finish; a
// crashed thread retires, and jobs no thread is left to run are reported, not lost.
// (The MPI side is tested through the CLI: tests/mpi.)
#include <catch2/catch.hpp>
#include <csignal>
#include <map>
#include <set>
#include <stdexcept>

#include "allocsim/results/job_farm.h"
#include "allocsim/results/sweep.h"

using namespace allocsim::results;

namespace {

FarmRun jobs(std::size_t n) {
  FarmRun r;
  for (std::size_t i = 0; i < n; ++i) r.todo.push_back(i);
  r.input = [](std::size_t i) { return "in" + std::to_string(i); };
  return r;
}

}  // namespace

TEST_CASE("every payload reaches collect once, with its job's input") {
  for (unsigned threads : {1u, 2u, 4u}) {
    const auto farm = make_thread_farm(threads);
    CHECK(farm->is_collector());
    CHECK(farm->ranks() == 1);
    std::map<std::size_t, std::string> got;
    const auto failed = farm->run(jobs(200), [](std::size_t i, const std::string& in) { return in + ":" + std::to_string(i * i); },
                                  [&](std::size_t i, std::string&& p) { CHECK(got.emplace(i, std::move(p)).second); });
    CHECK(failed.empty());
    REQUIRE(got.size() == 200);
    for (const auto& [i, p] : got) CHECK(p == "in" + std::to_string(i) + ":" + std::to_string(i * i));
    CHECK(farm->jobs_by_rank() == std::vector<std::size_t>{200});
  }
}

TEST_CASE("a job that throws is reported with its index, the others finish") {
  const auto farm = make_thread_farm(2);
  std::set<std::size_t> got;
  const auto failed = farm->run(
      jobs(50),
      [](std::size_t i, const std::string&) -> std::string {
        if (i == 7 || i == 31) throw std::runtime_error("bad job " + std::to_string(i));
        return "";
      },
      [&](std::size_t i, std::string&&) { got.insert(i); });
  REQUIRE(failed.size() == 2);
  CHECK(failed[0].index == 7);
  CHECK(failed[0].what == "bad job 7");
  CHECK(failed[1].index == 31);
  CHECK(got.size() == 48);
  CHECK_FALSE(got.count(7));
  CHECK(format_failures(failed, [](std::size_t i) { return "j" + std::to_string(i); }) ==
        "job 7 (j7): bad job 7\njob 31 (j31): bad job 31\n");
}

TEST_CASE("a crash fails its job and retires its thread, the other thread runs the rest") {
  const auto farm = make_thread_farm(2);
  std::set<std::size_t> got;
  const auto failed = farm->run(
      jobs(40),
      [](std::size_t i, const std::string&) -> std::string {
        if (i == 3) std::raise(SIGSEGV);
        return "";
      },
      [&](std::size_t i, std::string&&) { got.insert(i); });
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].index == 3);
  CHECK(failed[0].what == "crashed (signal 11, SIGSEGV)");
  CHECK(got.size() == 39);
  // The farm makes fresh threads for each run: the next run has both again.
  const auto again = farm->run(jobs(10), [](std::size_t, const std::string&) { return std::string(); },
                               [](std::size_t, std::string&&) {});
  CHECK(again.empty());
}

TEST_CASE("with its only thread retired, the jobs left are reported as not run") {
  const auto farm = make_thread_farm(1);
  std::set<std::size_t> got;
  const auto failed = farm->run(
      jobs(10),
      [](std::size_t i, const std::string&) -> std::string {
        if (i == 4) std::raise(SIGABRT);
        return "";
      },
      [&](std::size_t i, std::string&&) { got.insert(i); });
  CHECK(got == std::set<std::size_t>{0, 1, 2, 3});
  REQUIRE(failed.size() == 6);
  CHECK(failed[0].what == "crashed (signal 6, SIGABRT)");
  for (std::size_t k = 1; k < failed.size(); ++k) {
    CHECK(failed[k].index == 4 + k);
    CHECK(failed[k].what == "not run: every worker thread retired after a crash");
  }
}

TEST_CASE("parse_shard takes INDEX/COUNT with 0 <= INDEX < COUNT") {
  CHECK(parse_shard("0/1").count == 1);
  const SweepShard s = parse_shard("2/8");
  CHECK(s.index == 2);
  CHECK(s.count == 8);
  CHECK(s.active());
  for (const char* bad : {"", "3", "3/3", "-1/3", "1/0", "a/3", "1/b", "1/3x", "/3", "1/"})
    CHECK_THROWS_AS(parse_shard(bad), SweepError);
}
