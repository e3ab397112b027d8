// The run resolver (results/resolve.h): `--set` parsing, the run's seed reaching the draws made
// while loading (training-churn's sizes), per-seed scenarios of a sweep, and core/seeds.h's split.
#include <catch2/catch.hpp>

#include "allocsim/core/seeds.h"
#include "allocsim/results/resolve.h"
#include "allocsim/results/result_json.h"
#include "allocsim/results/runner.h"

using namespace allocsim;

namespace {

std::vector<std::uint64_t> alloc_sizes(const Scenario& s) {
  std::vector<std::uint64_t> out;
  for (const auto& op : s.program.ops)
    if (op.kind == HostOpKind::Alloc) out.push_back(op.bytes);
  return out;
}

RunConfig churn(std::optional<std::uint64_t> seed) {
  RunConfig c;
  c.scenario = "training-churn";
  c.sets.set("steps", 2);
  c.seed = seed;
  return c;
}

}  // namespace

TEST_CASE("parse_set_items: key=value with a finite number - anything else names the item", "[resolve]") {
  const auto items = parse_set_items({"trials=5", "spin_ns=1e6", "trials=7"});
  REQUIRE(items.size() == 3);
  CHECK(items[1].key == "spin_ns");
  CHECK(items[1].text == "1e6");
  CHECK(items[1].value == 1e6);
  CHECK(set_params(items).get("trials", 0) == 7);  // the last of a repeated key wins
  CHECK_THROWS_WITH(parse_set_items({"oops"}), "--set expects key=value, got 'oops'");
  CHECK_THROWS_WITH(parse_set_items({"=3"}), "--set expects key=value, got '=3'");
  for (const char* bad : {"seed=abc", "seed=", "seed=1x", "seed=inf", "seed=nan", "seed=1e999"})
    CHECK_THROWS_AS(parse_set_items({bad}), RunInputError);
  CHECK_THROWS_WITH(parse_set_items({"seed=abc"}), "--set seed: 'abc' is not a number");
}

TEST_CASE("the run's seed reaches the sizes drawn while loading", "[resolve][seed]") {
  const Scenario one = load_for_run(churn(1)), two = load_for_run(churn(2));
  CHECK(one.seed == 1);
  CHECK(two.seed == 2);
  CHECK(alloc_sizes(one) != alloc_sizes(two));
  CHECK(alloc_sizes(load_for_run(churn(2))) == alloc_sizes(two));

  // Without a run seed the scenario's own (defaults: seed 1) draws; --seed beats --set seed.
  CHECK(alloc_sizes(load_for_run(churn(std::nullopt))) == alloc_sizes(one));
  RunConfig both = churn(2);
  both.sets.set("seed", 1);
  CHECK(alloc_sizes(load_for_run(both)) == alloc_sizes(two));
  CHECK(resolve_sim_options(load_for_run(both), both).seed == 2);
  CHECK(resolve_sim_options(load_for_run(both), both).params.get("seed", 0) == 2);
  RunConfig by_set = churn(std::nullopt);
  by_set.sets.set("seed", 2);
  CHECK(alloc_sizes(load_for_run(by_set)) == alloc_sizes(two));

  CHECK_THROWS_AS(load_for_run(churn((std::uint64_t(1) << 53) + 1)), RunInputError);
}

TEST_CASE("two runs with the same seed give identical bytes of output - other seeds differ",
          "[resolve][seed]") {
  auto json_of = [](std::uint64_t seed) {
    const RunConfig c = churn(seed);
    const Scenario s = load_for_run(c);
    return pretty_json(result_to_json(run_one(s, c), &s.program));
  };
  const std::string a = json_of(3);
  CHECK(a == json_of(3));
  CHECK(a != json_of(4));
}

TEST_CASE("ScenarioPerSeed: one program per seed, shared by the jobs of that seed", "[resolve][seed]") {
  ScenarioPerSeed per_seed(churn(std::nullopt));
  const auto one = per_seed.get(1);
  CHECK(per_seed.get(1) == one);
  const auto two = per_seed.get(2);
  CHECK(two->seed == 2);
  CHECK(alloc_sizes(*one) == alloc_sizes(load_for_run(churn(1))));
  CHECK(alloc_sizes(*two) == alloc_sizes(load_for_run(churn(2))));
}

TEST_CASE("seed split: load-time draws are not the run-time chooser's stream", "[seed]") {
  for (std::uint64_t s : {0ull, 1ull, 2ull, 1ull << 53}) {
    CHECK(seeds::run_draws(s) == s);
    CHECK(seeds::load_draws(s) != seeds::run_draws(s));
  }
  CHECK(seeds::load_draws(1) != seeds::load_draws(2));
  CHECK(seeds::nth(7, 0) == 7);
  CHECK(seeds::nth(7, 2) == 9);
}
