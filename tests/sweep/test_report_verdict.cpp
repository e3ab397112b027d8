// Every verdict sentence of report.md against the tables it summarises (issue 15): hand-made
// sweeps, including the edge cases (ties, every option racy, none racy, a private pool that holds
// more device memory, host blocking not measured, runs identical from some capacity on), are
// rendered, and the sentences are read back and checked against the ranking tables, and those
// against the summary table at the same semaphore. A sentence that names another option or another
// number than its table fails here.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "allocsim/results/report.h"

using namespace allocsim;

namespace {

constexpr std::uint64_t MiB = 1 << 20;

struct Spec {
  std::string policy, guard;
  double in_use_mib = 10, reserved_mib = 512;
  double blocked_us = 0;  // host blocked in the policy's waits
  double makespan_us = 1000;
  int latent = 0;
  double growth_mib = 0;  // extra in-use per semaphore unit, up to `executions` units
  int cap_units = 0;      // and up to this many units (0 = no cap): a guard that bounds the growth
  double sync_us = 0;     // host blocked in the program's own syncs, over the final sync's 100 µs
};

/// One run per (option, semaphore, seed); in-use grows with min(semaphore, executions).
results::ReportInput make_input(const std::vector<Spec>& options, std::vector<int> sems, int executions,
                                bool measured = true) {
  results::ReportInput in;
  in.spec.scenario = "hand";
  in.spec.semaphores = sems;
  in.spec.seeds = 2;
  in.spec.base_seed = 1;
  in.spec.executions = executions;
  for (const auto& o : options) {
    if (std::find(in.spec.policies.begin(), in.spec.policies.end(), o.policy) == in.spec.policies.end())
      in.spec.policies.push_back(o.policy);
    if (std::find(in.spec.guards.begin(), in.spec.guards.end(), o.guard) == in.spec.guards.end())
      in.spec.guards.push_back(o.guard);
  }
  for (const auto& o : options)
    for (int s : sems)
      for (std::uint64_t seed : {1u, 2u}) {
        RunResult r;
        r.scenario = "hand";
        r.policy = o.policy;
        r.guard = o.guard;
        r.semaphore = s;
        r.seed = seed;
        r.races_latent = static_cast<std::uint64_t>(o.latent);
        const double units =
            std::min({s, executions > 0 ? executions : s, o.cap_units > 0 ? o.cap_units : s});
        r.peak_bytes_in_use = static_cast<std::uint64_t>((o.in_use_mib + o.growth_mib * units) * MiB);
        r.peak_pool_bytes = static_cast<std::uint64_t>(o.reserved_mib * MiB);
        r.makespan_ns = static_cast<TimeNs>(o.makespan_us * 1000);
        r.host_stall_ns = r.makespan_ns / 2;
        if (measured) {
          r.host_blocked_policy_ns = static_cast<TimeNs>(o.blocked_us * 1000);
          // the program's final sync: the workload's, never ranked on
          r.host_blocked_sync_ns = 100'000 + static_cast<TimeNs>(o.sync_us * 1000);
        }
        in.runs.push_back(r);
      }
  return in;
}

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '|') {
      auto b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cur.substr(b, e - b + 1));
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  return cells;
}

using Table = std::vector<std::map<std::string, std::string>>;  // rows: header -> cell

/// The first markdown table after the line that starts with `heading`; empty if there is none.
Table table_after(const std::string& md, const std::string& heading) {
  Table t;
  auto at = md.find(heading);
  if (at == std::string::npos) return t;
  std::istringstream is(md.substr(at));
  std::string line;
  std::vector<std::string> header;
  bool in_table = false;
  while (std::getline(is, line)) {
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    auto cells = split_cells(line);
    if (!in_table)
      header = cells, in_table = true;
    else if (cells[0].find("---") == std::string::npos) {
      std::map<std::string, std::string> row;
      for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = cells[i];
      t.push_back(row);
    }
  }
  return t;
}

std::string bullet(const std::string& md, const std::string& start) {
  auto at = md.find("\n- " + start);
  if (at == std::string::npos) return {};
  return md.substr(at + 3, md.find('\n', at + 1) - at - 3);
}

double num(const std::string& s) { return std::stod(s); }

/// The ranking keys as the tables print them: memory = (reserved, in-use), time = (the time
/// column, then makespan).
struct Keys {
  double reserved, in_use, time, makespan;
};
Keys keys(const std::map<std::string, std::string>& row, const std::string& time_column) {
  return {num(row.at("peak reserved MiB")), num(row.at("peak in-use MiB")), num(row.at(time_column)),
          num(row.at("makespan ms"))};
}
bool memory_lt(const Keys& a, const Keys& b) {
  return a.reserved != b.reserved ? a.reserved < b.reserved : a.in_use < b.in_use;
}
bool time_lt(const Keys& a, const Keys& b) {
  return a.time != b.time ? a.time < b.time : a.makespan < b.makespan;
}

/// Checks every verdict sentence against the tables; returns the rendered markdown for more checks.
std::string check_consistent(const results::ReportInput& in) {
  const std::string md = results::render_report_markdown(in, {{}, "disabled"});
  INFO(md);
  std::smatch m;
  const std::string race_free = bullet(md, "Race-free: ");
  REQUIRE(std::regex_search(race_free, m, std::regex(R"(Race-free: (\d+) of (\d+) options\.)")));
  const std::size_t n_free = std::stoul(m[1]), n_all = std::stoul(m[2]);
  const int sem = in.spec.semaphores.back();
  const Table summary = table_after(md, "### Summary at semaphore " + std::to_string(sem));
  CHECK(summary.size() == n_all);
  const bool measured = md.find("host blocked by policy µs") != std::string::npos;
  const std::string time_column = measured ? "host blocked by policy µs" : "makespan ms";
  const std::string time_name = measured ? "policy-caused host blocking" : "makespan";
  const Table by_memory = table_after(md, "Race-free options ranked by device memory");
  const Table by_time = table_after(md, "Race-free options ranked by " + time_name);
  CHECK(by_memory.size() == n_free);
  CHECK(by_time.size() == n_free);
  // Racy options are named, and appear in no ranking.
  std::size_t racy_rows = 0;
  for (const auto& row : summary)
    if (row.at("latent races") != "0" || row.at("manifest races") != "0") {
      ++racy_rows;
      CHECK(bullet(md, "Racy").find("`" + row.at("policy") + "` + `" + row.at("guard") + "`") !=
            std::string::npos);
      for (const auto& r : by_memory)
        CHECK_FALSE((r.at("policy") == row.at("policy") && r.at("guard") == row.at("guard")));
    }
  CHECK(racy_rows == n_all - n_free);
  if (n_free == 0) {
    CHECK(bullet(md, "No option was race-free") != "");
    return md;
  }
  // Each ranking row is its option's summary row.
  for (const Table* t : {&by_memory, &by_time})
    for (const auto& r : *t) {
      bool found = false;
      for (const auto& s : summary)
        if (s.at("policy") == r.at("policy") && s.at("guard") == r.at("guard")) {
          found = true;
          CHECK(num(s.at("peak pool MiB")) == num(r.at("peak reserved MiB")));
          CHECK(s.at("peak in-use MiB").rfind(r.at("peak in-use MiB"), 0) == 0);
          CHECK(s.at("makespan ms").rfind(r.at("makespan ms"), 0) == 0);
          if (measured) CHECK(s.at("blocked in policy µs").rfind(r.at(time_column), 0) == 0);
        }
      CHECK(found);
    }
  // The tables are in order, and the sentences name their first row with its numbers.
  for (std::size_t i = 1; i < by_memory.size(); ++i)
    CHECK_FALSE(memory_lt(keys(by_memory[i], time_column), keys(by_memory[i - 1], time_column)));
  for (std::size_t i = 1; i < by_time.size(); ++i)
    CHECK_FALSE(time_lt(keys(by_time[i], time_column), keys(by_time[i - 1], time_column)));
  auto check_first = [&](const std::string& sentence, const std::map<std::string, std::string>& first) {
    REQUIRE(std::regex_search(
        sentence, m,
        std::regex(R"(: `([^`]+)` \+ `([^`]+)`: peak reserved ([\d.]+) MiB, peak in-use ([\d.]+) MiB)")));
    CHECK(m[1] == first.at("policy"));
    CHECK(m[2] == first.at("guard"));
    CHECK(m[3] == first.at("peak reserved MiB"));
    CHECK(m[4] == first.at("peak in-use MiB"));
    CHECK(sentence.find("makespan " + first.at("makespan ms") + " ms") != std::string::npos);
  };
  const std::string mem_sentence = bullet(md, "Least device memory among race-free options");
  const std::string time_sentence = bullet(md, "Least " + time_name + " among race-free options");
  check_first(mem_sentence, by_memory.front());
  check_first(time_sentence, by_time.front());
  // The tie counts are the rows that print the same keys as the first.
  std::size_t mem_ties = 0, time_ties = 0;
  for (const auto& r : by_memory)
    mem_ties += r.at("peak reserved MiB") == by_memory[0].at("peak reserved MiB") &&
                r.at("peak in-use MiB") == by_memory[0].at("peak in-use MiB");
  for (const auto& r : by_time)
    time_ties += r.at(time_column) == by_time[0].at(time_column) &&
                 r.at("makespan ms") == by_time[0].at("makespan ms");
  if (mem_ties > 1)
    CHECK(mem_sentence.find(std::to_string(mem_ties) + " options tie") != std::string::npos);
  else
    CHECK(mem_sentence.find("tie") == std::string::npos);
  if (time_ties > 1)
    CHECK(time_sentence.find(std::to_string(time_ties) + " options tie") != std::string::npos);
  else
    CHECK(time_sentence.find("tie") == std::string::npos);
  // "Peak reserved is R MiB for N race-free options whose peak in-use ranges A–B MiB": the table's
  // rows at R, and it is there exactly when those rows differ in use.
  {
    const std::string reserved = by_memory.front().at("peak reserved MiB");
    std::size_t n = 0;
    double lo = 1e300, hi = -1;
    for (const auto& r : by_memory)
      if (r.at("peak reserved MiB") == reserved) {
        ++n;
        lo = std::min(lo, num(r.at("peak in-use MiB")));
        hi = std::max(hi, num(r.at("peak in-use MiB")));
      }
    const std::string flat = bullet(md, "Peak reserved is");
    if (n > 1 && lo != hi) {
      char want[160];
      std::snprintf(want, sizeof want,
                    "Peak reserved is %s MiB for %zu race-free options whose peak in-use ranges "
                    "%.2f–%.2f MiB",
                    reserved.c_str(), n, lo, hi);
      CHECK(flat.rfind(want, 0) == 0);
    } else {
      CHECK(flat.empty());
    }
  }
  // The frontier, recomputed from the table.
  const std::string frontier = bullet(md, "Trade-off frontier");
  for (const auto& a : by_memory) {
    const Keys ka = keys(a, time_column);
    bool dominated = false;
    for (const auto& b : by_memory) {
      const Keys kb = keys(b, time_column);
      const bool le = !memory_lt(ka, kb) && !time_lt(ka, kb);
      dominated = dominated || (le && (memory_lt(kb, ka) || time_lt(kb, ka)));
    }
    const std::string name = "`" + a.at("policy") + "` + `" + a.at("guard") + "`";
    INFO(name);
    CHECK((frontier.find(name) == std::string::npos) == dominated);
  }
  // "runs at semaphores X, Y are identical": the peak-by-semaphore table agrees for every option.
  const std::string bound = bullet(md, "What bounds the growth");
  if (std::regex_search(bound, m, std::regex(R"(runs at semaphores ([\d, ]+) are identical)"))) {
    std::vector<std::string> sems;
    std::istringstream is(m[1].str());
    for (std::string s; std::getline(is, s, ',');) sems.push_back("sem " + std::to_string(std::stoi(s)));
    for (const auto& row : table_after(md, "### Peak in-use (MiB) by semaphore capacity"))
      for (const auto& s : sems) CHECK(row.at(s) == row.at(sems.front()));
  }
  // "What caps the deferring options": every range it gives is the peak-by-semaphore table's
  // range over the policies it names, with `none` and with each guard it names.
  const std::string cap = bullet(md, "What caps the deferring options");
  if (!cap.empty()) {
    REQUIRE(std::regex_search(cap, m, std::regex(R"(options: (.+?) defers? frees)")));
    std::vector<std::string> policies;
    const std::string list = m[1];
    const std::regex quoted("`([^`]+)`");
    for (auto it = std::sregex_iterator(list.begin(), list.end(), quoted); it != std::sregex_iterator(); ++it)
      policies.push_back((*it)[1]);
    REQUIRE_FALSE(policies.empty());
    const Table peaks = table_after(md, "### Peak in-use (MiB) by semaphore capacity");
    auto range_of = [&](const std::string& guard) {
      double lo = 1e300, hi = -1;
      for (const auto& row : peaks)
        if (row.at("guard") == guard &&
            std::find(policies.begin(), policies.end(), row.at("policy")) != policies.end() &&
            row.at("sem " + std::to_string(sem)).find('!') == std::string::npos) {
          lo = std::min(lo, num(row.at("sem " + std::to_string(sem))));
          hi = std::max(hi, num(row.at("sem " + std::to_string(sem))));
        }
      char buf[64];
      if (lo == hi)
        std::snprintf(buf, sizeof buf, "%.2f", lo);
      else
        std::snprintf(buf, sizeof buf, "%.2f–%.2f", lo, hi);
      return std::string(buf);
    };
    CHECK(cap.find("reach" + std::string(policies.size() == 1 ? "es " : " ") + range_of("none") +
                   " MiB in use at semaphore " + std::to_string(sem) + " with `none`") != std::string::npos);
    const std::regex guard_clause(R"(; with `([^`]+)` (?:it|they) reach(?:es)? ([\d.–]+) MiB, as )");
    int guards = 0;
    for (auto it = std::sregex_iterator(cap.begin(), cap.end(), guard_clause); it != std::sregex_iterator();
         ++it, ++guards) {
      INFO((*it)[1]);
      CHECK((*it)[2] == range_of((*it)[1]));
    }
    CHECK(guards > 0);
  }
  return md;
}

}  // namespace

TEST_CASE("verdict: a private pool holding more device memory does not rank first", "[verdict]") {
  auto md = check_consistent(make_input({{"immediate", "none", 10, 512, 0, 1000, 3},
                                         {"immediate", "private-pool", 10, 1536, 0, 1000},
                                         {"immediate", "wait-compute", 10, 512, 5, 1010},
                                         {"deferred-callback", "none", 10, 512, 0, 1000, 0, 2}},
                                        {1, 4}, 4));
  CHECK(bullet(md, "Least device memory").find("`immediate` + `wait-compute`") != std::string::npos);
  // The two 512 MiB options differ in use (10 and 18 MiB at semaphore 4): the report says so.
  CHECK(bullet(md, "Peak reserved is")
            .find("512.00 MiB for 2 race-free options whose peak in-use ranges "
                  "10.00–18.00 MiB") != std::string::npos);
  // immediate + private-pool and deferred-callback + none tie on host time; the private pool's
  // 1536 MiB reserved puts it second.
  CHECK(bullet(md, "Least policy-caused host blocking").find("`deferred-callback` + `none`") !=
        std::string::npos);
  CHECK(bullet(md, "Least policy-caused host blocking").find("2 options tie") != std::string::npos);
}

TEST_CASE("verdict: ties are counted, and the ranking breaks them on the other key", "[verdict]") {
  auto md = check_consistent(make_input(
      {{"a", "none", 10, 512, 3, 1000}, {"b", "none", 10, 512, 1, 1000}, {"c", "none", 10, 512, 1, 1000}},
      {1, 2}, 0));
  CHECK(bullet(md, "Least device memory").find("3 options tie") != std::string::npos);
  CHECK(bullet(md, "Least device memory").find("`b` + `none`") != std::string::npos);
  CHECK(bullet(md, "Least policy-caused host blocking").find("2 options tie") != std::string::npos);
}

TEST_CASE("verdict: every option racy gives no ranking and says so", "[verdict]") {
  auto md = check_consistent(make_input(
      {{"immediate", "none", 10, 512, 0, 1000, 2}, {"deferred-callback", "none", 10, 512, 0, 1000, 1}}, {1},
      0));
  CHECK(md.find("Race-free options ranked") == std::string::npos);
}

TEST_CASE("verdict: no option racy - runs identical from the number of executions on", "[verdict]") {
  auto md = check_consistent(make_input({{"immediate", "none", 15, 512, 0, 8000},
                                         {"deferred-callback", "none", 15, 512, 1, 8000, 0, 15},
                                         {"host-sync", "none", 15, 512, 900, 9000}},
                                        {1, 2, 4, 8, 16, 32}, 16));
  CHECK(md.find("Racy (") == std::string::npos);
  const std::string bound = bullet(md, "What bounds the growth");
  CHECK(bound.find("the program has 16 executions") != std::string::npos);
  CHECK(bound.find("runs at semaphores 16, 32 are identical") != std::string::npos);
  const std::string growth = bullet(md, "Largest growth");
  CHECK(growth.find("`deferred-callback` + `none`, peak in-use 30.00 MiB at semaphore 1 to 255.00 MiB at "
                    "semaphore 32") != std::string::npos);
  CHECK(growth.find("stops growing at semaphore 16") != std::string::npos);
}

TEST_CASE("verdict: without measured host blocking the time ranking is by makespan, and says why",
          "[verdict]") {
  auto md = check_consistent(make_input({{"immediate", "none", 10, 512, 0, 1200},
                                         {"host-sync", "none", 10, 512, 0, 1500},
                                         {"deferred-callback", "none", 20, 512, 0, 1100}},
                                        {1, 2}, 0, /*measured=*/false));
  CHECK(md.find("do not report host blocking by cause") != std::string::npos);
  CHECK(bullet(md, "Least makespan").find("`deferred-callback` + `none`") != std::string::npos);
  CHECK(md.find("policy-caused host blocking") == std::string::npos);
}

// "What caps the deferring options" (the flagship's 70–78 MiB with a guard): which guards keep
// the policies that defer frees below their peak with `none`, and the host blocking that explains
// it, all from the runs.
TEST_CASE("verdict: the guards that cap the deferring options are named with the blocking that explains it",
          "[verdict]") {
  // deferred-callback and batched-callback defer (with `none` they grow 15 and 16 MiB per unit, up
  // to the 16 executions); wait-compute stops them at 4 units while the program's syncs block 600
  // and 610.5 µs more, device-sync at 3 units while its own waits block 120 and 180 µs; private-pool
  // blocks nothing and batched-callback still reaches deferred-callback's 255 MiB under it.
  auto md =
      check_consistent(make_input({{"immediate", "none", 15, 512, 0, 8000},
                                   {"deferred-callback", "none", 15, 512, 0, 8000, 0, 15},
                                   {"deferred-callback", "wait-compute", 15, 512, 0, 8600, 0, 15, 4, 600},
                                   {"deferred-callback", "device-sync", 15, 512, 120, 8100, 0, 15, 3},
                                   {"deferred-callback", "private-pool", 15, 1536, 0, 8000, 0, 15},
                                   {"batched-callback", "none", 15, 512, 0, 8000, 0, 16},
                                   {"batched-callback", "wait-compute", 15, 512, 0, 8600, 0, 16, 4, 610.5},
                                   {"batched-callback", "device-sync", 15, 512, 180, 8200, 0, 16, 3},
                                   {"batched-callback", "private-pool", 15, 1536, 0, 8000, 0, 15},
                                   {"host-sync", "none", 15, 512, 900, 9000},
                                   {"immediate", "device-sync", 15, 512, 100, 8100}},
                                  {1, 2, 4, 8, 16, 32}, 16));
  const std::string want =
      "What caps the deferring options: `deferred-callback` and `batched-callback` defer frees (with `none` "
      "their peak in-use is larger at semaphore 32 than at 1) and reach 255.00–271.00 MiB in use at "
      "semaphore 32 with `none`; with `wait-compute` they reach 75.00–79.00 MiB, as the guard's own waits do "
      "not block the host but the program's own syncs block it 600.0–610.5 µs longer per run than with "
      "`none`; with `device-sync` they reach 60.00–63.00 MiB, as the guard's own waits block the host "
      "120.0–180.0 µs longer per run than with `none`; while the host is blocked, compute drains and the "
      "pending frees return, so the host cannot run further ahead than from one such wait to the next.";
  CHECK(bullet(md, "What caps the deferring options") == want);
  // README quotes headline.md: the sentence is one of its bullets.
  CHECK(
      results::render_headline_markdown(
          make_input({{"deferred-callback", "none", 15, 512, 0, 8000, 0, 15},
                      {"deferred-callback", "device-sync", 15, 512, 120, 8100, 0, 15, 3}},
                     {1, 32}, 16))
          .find("\n- What caps the deferring options: `deferred-callback` defers frees (with `none` its peak "
                "in-use is larger at semaphore 32 than at 1) and reaches 255.00 MiB in use at semaphore 32 "
                "with `none`; with `device-sync` it reaches 60.00 MiB, as the guard's own waits block the "
                "host 120.0 µs longer per run than with `none`; while") != std::string::npos);
}

TEST_CASE("verdict: no guard-cap sentence when no guard both lowers the deferring options' peak and blocks",
          "[verdict]") {
  const std::vector<int> sems = {1, 4, 16};
  auto absent = [&](const results::ReportInput& in) {
    const std::string md = check_consistent(in);
    INFO(md);
    CHECK(md.find("What caps") == std::string::npos);
    CHECK(results::render_headline_markdown(in).find("What caps") == std::string::npos);
  };
  SECTION("a guard lowers the peak without blocking the host, another blocks without lowering it") {
    absent(make_input({{"deferred-callback", "none", 15, 512, 0, 8000, 0, 15},
                       {"deferred-callback", "wait-compute", 15, 512, 0, 8000, 0, 15, 4},
                       {"deferred-callback", "device-sync", 15, 512, 120, 8100, 0, 15, 0, 50},
                       {"batched-callback", "none", 15, 512, 0, 8000, 0, 16},
                       {"batched-callback", "wait-compute", 15, 512, 0, 8000, 0, 16, 4},
                       {"batched-callback", "device-sync", 15, 512, 180, 8200, 0, 16, 0, 50}},
                      sems, 16));
  }
  SECTION("a guard's own waits block the host for one deferring policy and not the other") {
    absent(make_input({{"deferred-callback", "none", 15, 512, 0, 8000, 0, 15},
                       {"deferred-callback", "device-sync", 15, 512, 120, 8100, 0, 15, 3},
                       {"batched-callback", "none", 15, 512, 0, 8000, 0, 16},
                       {"batched-callback", "device-sync", 15, 512, 0, 8100, 0, 16, 3, 40}},
                      sems, 16));
  }
  SECTION("no policy defers frees: a blocking guard has no growth to cap") {
    absent(make_input({{"immediate", "none", 15, 512, 0, 8000},
                       {"immediate", "device-sync", 15, 512, 120, 8100},
                       {"host-sync", "none", 15, 512, 900, 9000}},
                      sems, 16));
  }
  SECTION("the only deferring option is racy with `none`") {
    absent(make_input({{"deferred-callback", "none", 15, 512, 0, 8000, 2, 15},
                       {"deferred-callback", "device-sync", 15, 512, 120, 8100, 0, 15, 3},
                       {"host-sync", "none", 15, 512, 900, 9000}},
                      sems, 16));
  }
  SECTION("host blocking not measured") {
    absent(make_input({{"deferred-callback", "none", 15, 512, 0, 8000, 0, 15},
                       {"deferred-callback", "device-sync", 15, 512, 120, 8100, 0, 15, 3}},
                      sems, 16, /*measured=*/false));
  }
}
