// Built-in scenarios: each loads, the embedded copy equals scenarios/builtin/*.yaml, and each has
// the structure its story needs (same-size scratch in seed-repro, seeded sizes in training-churn,
// both shutdown orders).
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "allocsim/scenarios/builtin.h"
#include "scenario_test_util.h"

using namespace allocsim;
using allocsim::test::count_ops;

namespace {
std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("the four built-ins exist, load, and are listed with descriptions") {
  auto list = list_scenarios();
  std::set<std::string> names;
  for (const auto& e : list) {
    names.insert(e.name);
    CHECK_FALSE(e.description.empty());
    CHECK(e.description.find('\n') == std::string::npos);
  }
  CHECK(names == std::set<std::string>{"conv-autotune", "seed-repro", "shutdown-order", "training-churn"});
  for (const auto& name : names) {
    Scenario s = load_scenario(name);
    CHECK(s.name == name);
    REQUIRE_FALSE(s.program.ops.empty());
    CHECK(s.program.streams[0].name == "compute");
    CHECK(s.program.streams[0].is_compute);
    CHECK(count_ops(s.program, HostOpKind::Alloc) == count_ops(s.program, HostOpKind::Release));
  }
}

TEST_CASE("embedded built-ins are identical to scenarios/builtin/*.yaml (run embed.py after editing)") {
  for (const auto& b : builtin_scenario_sources()) {
    std::string path = std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/builtin/" + std::string(b.name) + ".yaml";
    INFO(path);
    CHECK(read_file(path) == std::string(b.yaml_text));
  }
}

TEST_CASE("seed-repro: per trial, X is released before the autotune scratch of the same size is allocated, "
          "and the scratch is freed after a sync of its stream") {
  Scenario s = load_scenario("seed-repro", [] { Params p; p.set("trials", 3); return p; }());
  const Program& p = s.program;
  CHECK(count_ops(p, HostOpKind::BeginExecution) == 3);
  CHECK(count_ops(p, HostOpKind::EndExecution) == 3);
  CHECK(s.device.memory_limit == 64u << 20);
  CHECK_FALSE(s.device.allow_growth);
  StreamId autotune = 1;
  REQUIRE(p.streams[1].name == "autotune");
  int checked = 0;
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const HostOp& op = p.ops[i];
    if (op.kind != HostOpKind::Alloc || op.stream != autotune) continue;
    CHECK(op.bytes == 4u << 20);
    // the previous op releases X, whose last use (a copy) is queued before it
    REQUIRE(i >= 2);
    CHECK(p.ops[i - 1].kind == HostOpKind::Release);
    CHECK(p.buffer_names[std::size_t(p.ops[i - 1].buffer)].rfind("X", 0) == 0);
    CHECK(p.ops[i - 2].kind == HostOpKind::Copy);
    CHECK(p.ops[i + 1].kind == HostOpKind::Memset);
    CHECK(p.ops[i + 1].stream == autotune);
    // as the real autotuner, the host waits for its stream before it frees the scratch
    CHECK(p.ops[i + 2].kind == HostOpKind::StreamSync);
    CHECK(p.ops[i + 2].stream == autotune);
    CHECK(p.ops[i + 3].kind == HostOpKind::Release);
    CHECK(p.ops[i + 3].buffer == op.buffer);
    ++checked;
  }
  CHECK(checked == 3);
}

TEST_CASE("conv-autotune: autotune passes allocate scratch the size of the released im2col buffer") {
  Scenario s = load_scenario("conv-autotune");
  const Program& p = s.program;
  std::set<std::uint64_t> scratch_sizes, im2col_sizes;
  for (const auto& op : p.ops) {
    if (op.kind != HostOpKind::Alloc) continue;
    const std::string& n = p.buffer_names[std::size_t(op.buffer)];
    if (n.rfind("conv_scratch", 0) == 0) scratch_sizes.insert(op.bytes);
    if (n.rfind("im2col", 0) == 0) im2col_sizes.insert(op.bytes);
  }
  CHECK(scratch_sizes == im2col_sizes);
  CHECK(count_ops(p, HostOpKind::BeginExecution) == 16);
  CHECK(count_ops(p, HostOpKind::Memset) == 4);
  CHECK(p.ops.size() < 2000);  // milliseconds per run: the flagship sweeps it hundreds of times
}

TEST_CASE("training-churn: sizes are drawn from the seed, deterministically") {
  auto sizes = [](double seed) {
    Params p;
    p.set("seed", seed);
    Scenario s = load_scenario("training-churn", p);
    std::vector<std::uint64_t> out;
    for (const auto& op : s.program.ops)
      if (op.kind == HostOpKind::Alloc) out.push_back(op.bytes);
    return out;
  };
  auto a = sizes(1), b = sizes(1), c = sizes(2);
  CHECK(a == b);
  CHECK(a != c);
  std::set<std::uint64_t> distinct(a.begin(), a.end());
  CHECK(distinct.size() > 50);  // mixed sizes, not one size
  for (auto v : a) CHECK(v % 256 == 0);
}

TEST_CASE("shutdown-order: XLA order by default, the wrong order with --set wrong_order=1") {
  auto shutdown_of = [](const Params& p) {
    Scenario s = load_scenario("shutdown-order", p);
    REQUIRE(s.program.ops.back().kind == HostOpKind::Shutdown);
    return s.program.ops.back().wrong_order;
  };
  CHECK_FALSE(shutdown_of({}));
  Params wrong;
  wrong.set("wrong_order", 1);
  CHECK(shutdown_of(wrong));
  CHECK(load_scenario("shutdown-order").default_policy == "deferred-callback");
}
