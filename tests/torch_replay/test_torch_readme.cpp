// results/torch/README.md against its data: every cell of its two tables must equal the sweep's
// results.csv row at semaphore 32, formatted the way the README prints it, and every figure its
// text cites is recomputed here from results.csv or from the trace's JSON and must appear in the
// README verbatim, next to the relation the sentence claims (checked on the data). Regenerating
// the results without updating the README, or editing a claim the data does not support, fails.
#include <catch2/catch.hpp>

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "allocsim/results/runner.h"
#include "allocsim/scenarios/loader.h"
#include "test_inputs.h"

namespace {

constexpr double kMiB = 1 << 20;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string mib(double bytes) { return fmt("%.2f", bytes / kMiB); }

using Row = std::map<std::string, std::string>;

/// results.csv: a header line, then one row per run (no field of these sweeps holds a comma).
std::vector<Row> read_csv(const std::string& path) {
  std::istringstream in(allocsim::test::read_text_file(path));
  auto split = [](const std::string& line) {
    std::vector<std::string> out;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) out.push_back(cell);
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
  };
  std::string line;
  std::getline(in, line);
  const auto header = split(line);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    const auto cells = split(line);
    REQUIRE(cells.size() == header.size());
    Row r;
    for (std::size_t i = 0; i < cells.size(); ++i) r[header[i]] = cells[i];
    rows.push_back(r);
  }
  return rows;
}

double num(const Row& r, const std::string& key) { return std::stod(r.at(key)); }

/// The README's table rows (policy -> its cells) under the line that starts with `**<trace>**`.
std::map<std::string, std::vector<std::string>> readme_table(const std::string& readme, const std::string& trace) {
  const auto at = readme.find("\n**" + trace + "**");
  REQUIRE(at != std::string::npos);
  std::istringstream in(readme.substr(at + 1));
  std::map<std::string, std::vector<std::string>> rows;
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    std::vector<std::string> cells;
    std::istringstream ls(line.substr(1));
    std::string cell;
    while (std::getline(ls, cell, '|')) {
      const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    if (cells[0] == "policy" || cells[0].rfind("---", 0) == 0) continue;  // header, separator
    rows[cells[0]] = std::vector<std::string>(cells.begin() + 1, cells.end());
  }
  return rows;
}

/// The semaphore-32 rows by policy.
std::map<std::string, Row> sweep(const std::string& trace) {
  std::map<std::string, Row> by_policy;
  for (const auto& r : read_csv(std::string(ALLOCSIM_SOURCE_DIR) + "/results/torch/" + trace + "/results.csv"))
    if (r.at("semaphore") == "32") by_policy[r.at("policy")] = r;
  return by_policy;
}

/// What the trace's JSON says: frees per stream (requested, returned inside free(), never
/// returned), held bytes, segments, the peak of requested bytes, its metadata.
struct Trace {
  std::map<std::uint64_t, std::size_t> requested, at_once, never;
  double held_bytes = 0, peak_requested = 0, max_allocated = 0, max_reserved = 0;
  std::map<std::uint64_t, std::map<std::uint64_t, std::size_t>> segments;  // stream -> size -> count
  double segment_bytes = 0;
  std::size_t segment_count = 0;
};

Trace read_trace(const std::string& name) {
  const auto root = boost::json::parse(allocsim::test::gunzip_file(allocsim::test::require_data("torch_traces/" + name + ".json.gz")));
  const auto& entries = root.at("device_traces").at(0).as_array();
  Trace t;
  std::map<std::uint64_t, std::size_t> awaiting;  // addr -> index of its free_requested
  std::map<std::uint64_t, double> live;
  double current = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i].as_object();
    const std::string action(e.at("action").as_string());
    const auto addr = e.at("addr").to_number<std::uint64_t>();
    const auto stream = e.at("stream").to_number<std::uint64_t>();
    const auto size = e.at("size").to_number<double>();
    if (action == "alloc") {
      live[addr] = size;
      current += size;
      t.peak_requested = std::max(t.peak_requested, current);
    } else if (action == "free_requested") {
      current -= live.at(addr);
      live.erase(addr);
      ++t.requested[stream];
      awaiting[addr] = i;
    } else if (auto it = awaiting.find(addr); action == "free_completed" && it != awaiting.end()) {
      if (it->second + 1 == i) ++t.at_once[stream];
      awaiting.erase(it);
    } else if (action == "segment_alloc") {
      ++t.segments[stream][static_cast<std::uint64_t>(size)];
      t.segment_bytes += size;
      ++t.segment_count;
    }
  }
  for (const auto& [addr, index] : awaiting) {
    const auto& e = entries[index].as_object();
    ++t.never[e.at("stream").to_number<std::uint64_t>()];
    t.held_bytes += e.at("size").to_number<double>();
  }
  t.max_allocated = root.at("metadata").at("max_memory_allocated").to_number<double>();
  t.max_reserved = root.at("metadata").at("max_memory_reserved").to_number<double>();
  return t;
}

const std::string& readme() {
  static const std::string text = allocsim::test::read_text_file(std::string(ALLOCSIM_SOURCE_DIR) + "/results/torch/README.md");
  return text;
}

/// The README with every run of whitespace made one space, so a claim may wrap anywhere.
std::string squeezed(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n';
    if (!space) out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  return out;
}

void check_claim(const std::string& phrase) {
  static const std::string text = squeezed(readme());
  INFO("README.md must say: " << phrase);
  CHECK(text.find(phrase) != std::string::npos);
}

}  // namespace

TEST_CASE("results/torch/README.md tables equal results.csv at semaphore 32", "[torch][readme]") {
  for (const std::string trace : {"mlp_adamw", "sidestream_record_stream"}) {
    INFO(trace);
    const auto rows = sweep(trace);
    const auto table = readme_table(readme(), trace);
    REQUIRE(rows.size() == 7);
    CHECK(table.size() == rows.size());
    for (const auto& [policy, r] : rows) {
      INFO(policy);
      REQUIRE(table.count(policy) == 1);
      const double pool = num(r, "memory.peak_pool_bytes");
      const std::vector<std::string> want = {
          mib(num(r, "memory.peak_live_bytes")),
          mib(num(r, "memory.peak_bytes_in_use")),
          mib(num(r, "memory.peak_pending_bytes")),
          mib(pool),
          fmt("%.3f×", pool / num(r, "reference.max_memory_reserved")),
          fmt("%.2f", num(r, "time.host_stall_ns") / 1e6),
          fmt("%.2f", num(r, "time.makespan_ns") / 1e6)};
      CHECK(table.at(policy) == want);
    }
  }
}

TEST_CASE("results/torch/README.md claims hold on the data", "[torch][readme]") {
  const Trace mlp = read_trace("mlp_adamw"), side = read_trace("sidestream_record_stream");
  const auto mlp_runs = sweep("mlp_adamw"), side_runs = sweep("sidestream_record_stream");

  // no race claims: every run of both sweeps, at every semaphore, reports 0 races
  for (const std::string trace : {"mlp_adamw", "sidestream_record_stream"})
    for (const auto& r : read_csv(std::string(ALLOCSIM_SOURCE_DIR) + "/results/torch/" + trace + "/results.csv")) {
      CHECK(r.at("races.latent") == "0");
      CHECK(r.at("races.manifest") == "0");
      CHECK(r.at("warnings") == "1");  // the replay's race caveat
    }
  check_claim("are 0 in every row of both `results.csv` files **by construction**");
  check_claim("Every run carries this caveat as a warning");
  for (const std::string trace : {"mlp_adamw", "sidestream_record_stream"}) {
    INFO(trace << "/report.md must hold the verdict the README quotes");
    CHECK(allocsim::test::read_text_file(std::string(ALLOCSIM_SOURCE_DIR) + "/results/torch/" + trace + "/report.md")
              .find("- Race-free: 7 of 7 options.") != std::string::npos);
  }
  check_claim("The verdict in each `report.md` (\"Race-free: 7 of 7 options\") is empty");

  // what the data says about frees
  REQUIRE(mlp.requested.size() == 1);
  CHECK(mlp.never.empty());
  CHECK(mlp.at_once.at(0) == mlp.requested.at(0));
  check_claim("all " + std::to_string(mlp.requested.at(0)) + " frees came back inside `free()`");
  REQUIRE(side.requested.size() == 2);
  const std::uint64_t side_stream = side.requested.rbegin()->first;
  CHECK(side.at_once.at(0) == side.requested.at(0));
  check_claim("requested " + std::to_string(side.requested.at(0)) + " frees and got all " +
              std::to_string(side.at_once.at(0)) + " back");
  CHECK(side.at_once.at(side_stream) + side.never.at(side_stream) == side.requested.at(side_stream));
  check_claim("The side stream requested " + std::to_string(side.requested.at(side_stream)) + " frees: " +
              std::to_string(side.at_once.at(side_stream)) + " came back inside `free()` and " +
              std::to_string(side.never.at(side_stream)) + " never");
  check_claim(mib(side.held_bytes) + " MiB in all");
  check_claim("took " + std::to_string(side.segments.at(side_stream).at(128ull << 20)) + " segments of 128 MiB");

  // held blocks under deferred-callback: at most the never-returned bytes are pending at once (the
  // holds are fixed intervals from the trace; the replay's host runs behind the recording)
  const Row& deferred = side_runs.at("deferred-callback");
  CHECK(num(deferred, "memory.peak_pending_bytes") <= side.held_bytes);
  check_claim("`deferred-callback` keeps up to " + mib(num(deferred, "memory.peak_pending_bytes")) +
              " MiB pending at once, out of the " + mib(side.held_bytes) + " MiB of the " +
              std::to_string(side.never.at(side_stream)) + " blocks");
  check_claim("pool to " + mib(num(deferred, "memory.peak_pool_bytes")) + " MiB, " +
              fmt("%.3f×", num(deferred, "memory.peak_pool_bytes") / side.max_reserved));
  {  // why: with no host-call cost the replay's host keeps up with the recording, and every held
     // block is pending at once
    using namespace allocsim;
    const std::string trace = std::string(ALLOCSIM_TEST_DATA_DIR) + "/torch_traces/sidestream_record_stream.json.gz";
    RunConfig c;
    c.scenario = trace;
    c.policy = "deferred-callback";
    c.guard = "none";
    c.semaphore = 32;
    c.detect_races = false;
    PlatformProfile free_host;
    for (const char* f : {"launch_overhead_ns", "event_record_ns", "event_query_ns", "stream_wait_ns",
                          "event_create_ns", "event_destroy_ns", "callback_enqueue_ns", "host_alloc_ns",
                          "host_free_ns", "release_bookkeeping_ns"})
      free_host.*find_platform_field(f)->ns = 0;
    c.platform = free_host;
    const RunResult r = run_one(load_scenario(trace), c);
    CHECK(double(r.peak_pending_bytes) > side.held_bytes);
    check_claim("all " + std::to_string(side.never.at(side_stream)) + " are pending together and the pool reaches " +
                mib(double(r.peak_pool_bytes)) + " MiB");
  }
  CHECK(num(deferred, "memory.peak_bytes_in_use") < side.max_reserved);
  check_claim("Its peak in-use, " + mib(num(deferred, "memory.peak_bytes_in_use")) + " MiB, is below PyTorch's reserved");

  // immediate and stream-aware: the same peak, below PyTorch's reserved
  const double side_immediate = num(side_runs.at("immediate"), "memory.peak_bytes_in_use");
  CHECK(num(side_runs.at("stream-aware"), "memory.peak_bytes_in_use") == side_immediate);
  CHECK(side_immediate < side.max_reserved);
  check_claim("both peak at " + mib(side_immediate) + " MiB in-use, far below PyTorch's " + mib(side.max_reserved) +
              " MiB reserved");

  // host-sync stalls only where something is held
  check_claim("`host-sync`'s " + fmt("%.2f", num(side_runs.at("host-sync"), "time.host_stall_ns") / 1e6) +
              " ms stall on sidestream");
  check_claim("at each of the " + std::to_string(side.never.at(side_stream)) + " record_stream frees");
  const double mlp_immediate = num(mlp_runs.at("immediate"), "memory.peak_bytes_in_use");
  for (const char* policy : {"host-sync", "event-poll", "timestamp-frontier"}) {
    INFO(policy);
    CHECK(num(mlp_runs.at(policy), "memory.peak_bytes_in_use") == mlp_immediate);
    CHECK(num(mlp_runs.at(policy), "time.host_stall_ns") == 0);
  }
  check_claim("give exactly `immediate`'s peak in-use (" + mib(mlp_immediate) + " MiB), with no host stall");
  check_claim("`deferred-callback`'s " + mib(num(mlp_runs.at("deferred-callback"), "memory.peak_pending_bytes")) +
              " MiB pending there");

  // live vs PyTorch's allocated, pool vs reserved
  CHECK(num(mlp_runs.at("immediate"), "memory.peak_live_bytes") == mlp.peak_requested);
  check_claim(fmt("%.0f", mlp.max_allocated - mlp.peak_requested) + " B below PyTorch's `max_memory_allocated`");
  CHECK(num(side_runs.at("immediate"), "memory.peak_live_bytes") == side.peak_requested);
  check_claim("PyTorch's " + mib(side.max_allocated) + " MiB is " + mib(side.max_allocated - side.peak_requested) +
              " MiB above the " + mib(side.peak_requested) + " MiB requested");
  check_claim("(" + mib(num(mlp_runs.at("immediate"), "memory.peak_pool_bytes")) + " vs " + mib(mlp.max_reserved) +
              " MiB)");
  CHECK(mlp.segment_bytes == mlp.max_reserved);
  check_claim("PyTorch took " + std::to_string(mlp.segment_count) + " segments sized to the requests");
}
