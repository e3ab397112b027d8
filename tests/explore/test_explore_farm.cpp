// allocsim explore on the job farm (results/job_farm.h): a worker rank's part (serve, no report)
// and a failed schedule named in the error. The farms here stand in for MPI ranks and faulty jobs;
// the real MPI runs are tests/cli's explore_mpi.cmake.
#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <string>

#include "allocsim/results/explore.h"
#include "allocsim/results/job_farm.h"
#include "allocsim/results/resolve.h"
#include "explore_wire.h"

using namespace allocsim;

namespace {

RunConfig seed_repro_deferred() {
  RunConfig c;
  c.scenario = "seed-repro";
  c.policy = "deferred-callback";  // race-free on one trial: every level is explored
  c.guard = "none";
  c.sets.set("trials", 1);
  return c;
}

/// A farm of threads whose job `fail` (in every run, so at every level that has it) throws.
class FailingFarm final : public results::JobFarm {
 public:
  explicit FailingFarm(std::size_t fail) : fail_(fail) {}
  bool is_collector() const override { return true; }
  int rank() const override { return 0; }
  int ranks() const override { return 1; }
  void set_threads(unsigned threads) override { threads_->set_threads(threads); }
  unsigned threads() const override { return threads_->threads(); }
  std::vector<results::JobFailure> run(const results::FarmRun& run, const results::JobHandler& handler,
                                       const results::JobCollect& collect) override {
    const results::JobHandler failing = [&](std::size_t index, const std::string& input) {
      if (index == fail_) throw std::runtime_error("injected");
      return handler(index, input);
    };
    return threads_->run(run, failing, collect);
  }
  std::vector<std::size_t> jobs_by_rank() const override { return threads_->jobs_by_rank(); }
  void serve(const results::JobHandler&) override { FAIL("serve on the collector"); }

 private:
  std::unique_ptr<results::JobFarm> threads_ = results::make_thread_farm(2);
  std::size_t fail_;
};

/// A worker rank whose collector sends one job: the timed schedule, to expand.
class OneJobWorker final : public results::JobFarm {
 public:
  bool is_collector() const override { return false; }
  int rank() const override { return 1; }
  int ranks() const override { return 2; }
  void set_threads(unsigned) override {}
  unsigned threads() const override { return 1; }
  std::vector<results::JobFailure> run(const results::FarmRun&, const results::JobHandler&,
                                       const results::JobCollect&) override {
    FAIL("run on a worker rank");
    return {};
  }
  std::vector<std::size_t> jobs_by_rank() const override { return {}; }
  void serve(const results::JobHandler& handler) override {
    payload = handler(0, explore_detail::encode_job({{}, true}));
  }
  std::string payload;
};

}  // namespace

TEST_CASE("explore on a worker rank plays the jobs it is sent and reports nothing", "[explore]") {
  const RunConfig c = seed_repro_deferred();
  const Scenario s = load_for_run(c);
  OneJobWorker worker;
  const ExploreReport r = explore(s, c, ExploreOptions{}, {}, &worker);
  CHECK_FALSE(r.collector);
  CHECK(r.schedules == 0);
  // What the collector's own run of the timed schedule gives, and its level-1 children.
  ExploreOptions one_level;
  one_level.bound = 1;
  one_level.jobs = 1;
  const ExploreReport collector = explore(s, c, one_level);
  CHECK(collector.collector);
  const explore_detail::Played p = explore_detail::decode_played(worker.payload);
  CHECK(p.schedule.delays.empty());
  REQUIRE(collector.levels.size() == 2);
  CHECK(p.children.size() == collector.levels[1].schedules + collector.levels[1].duplicates);
}

TEST_CASE("a schedule that fails to play is bad input naming the schedule", "[explore]") {
  const RunConfig c = seed_repro_deferred();
  const Scenario s = load_for_run(c);
  FailingFarm farm(1);  // level 0 has job 0 only: the second schedule with one delay fails
  try {
    explore(s, c, ExploreOptions{}, {}, &farm);
    FAIL("no error");
  } catch (const RunInputError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("schedules with 1 delay(s) failed:\njob 1 (hold ") != std::string::npos);
    CHECK(what.find(" until ") != std::string::npos);
    CHECK(what.find("): injected") != std::string::npos);
    CHECK(what.back() != '\n');
  }
}
