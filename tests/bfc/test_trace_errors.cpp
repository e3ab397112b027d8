// Bad trace input: every malformed line is reported with its line number, and a good trace
// parses into dense id slots. (The CLI's exit status 2 is checked by the bfc_cli_* CTest tests.)
#include <catch2/catch.hpp>
#include <sstream>

#include "allocsim/pool/bfc_trace.h"

using allocsim::BfcTraceError;
using allocsim::parse_bfc_trace;

namespace {
const char* kHeader = "# memory_limit=67108864 allow_growth=1 garbage_collection=0\n# test trace\n";

// The error a trace raises, or "" if it parses.
std::string error_of(const std::string& text, std::size_t* line = nullptr) {
  std::istringstream in(text);
  try {
    parse_bfc_trace(in, "t.trace");
  } catch (const BfcTraceError& e) {
    if (line) *line = e.line();
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a good trace parses with options, dense slots and counts", "[bfc][trace]") {
  std::istringstream in(
      "# memory_limit=1000003 allow_growth=0 garbage_collection=1 coalesce_regions=1 "
      "fragmentation_fraction=0.25 future_key=7\n# desc\na 10 5\na 7 300 4096\nf 10\n\na 10 1\r\n");
  const auto t = parse_bfc_trace(in, "x");
  CHECK(t.options.memory_limit == 1000003);
  CHECK_FALSE(t.options.allow_growth);
  CHECK(t.options.garbage_collection);
  CHECK(t.options.coalesce_regions);
  CHECK(t.options.fragmentation_fraction == 0.25);
  CHECK(t.description == "desc");
  REQUIRE(t.ops.size() == 4);
  CHECK(t.ids == std::vector<std::int64_t>{10, 7});
  CHECK(t.ops[1].alignment == 4096);
  CHECK(t.ops[3].slot == 0);  // id 10 again after its free: same slot
  CHECK(t.alloc_ops == 3);
  CHECK(t.free_ops == 1);
}

TEST_CASE("bad trace input names the line", "[bfc][trace]") {
  struct Case {
    std::string text;
    std::size_t line;
    std::string words;
  };
  const std::string h = kHeader;
  const std::vector<Case> cases = {
      {"", 1, "missing header"},
      {"a 1 5\n", 1, "missing header"},
      {"# just a comment\na 1 5\n", 1, "missing header"},
      {"# memory_limit=12x\n", 1, "malformed memory_limit"},
      {"# memory_limit=100 allow_growth=2\n", 1, "allow_growth must be 0 or 1"},
      {h + "a 1 5\nx 2 7\n", 4, "unknown op 'x'"},
      {h + "a 1 5\nf 2\n", 4, "free of unknown id 2"},
      {h + "a 1 5\nf 1\nf 1\n", 5, "free of unknown id 1"},
      {h + "a 1 5\na 1 6\n", 4, "allocated again"},
      {h + "a 1 5k\n", 3, "malformed byte count '5k'"},
      {h + "a 1 -5\n", 3, "malformed byte count"},
      {h + "a 1 99999999999999999999999\n", 3, "malformed byte count"},
      {h + "a one 5\n", 3, "malformed id 'one'"},
      {h + "a 1\n", 3, "'a' wants"},
      {h + "f\n", 3, "'f' wants"},
      {h + "a 1 5 3000\n", 3, "alignment must be a power of two"},
      {h + "a 1 5 0\n", 3, "alignment must be a power of two"},
  };
  for (const Case& c : cases) {
    INFO("trace:\n" << c.text);
    std::size_t line = 0;
    const std::string err = error_of(c.text, &line);
    CHECK(line == c.line);
    CHECK(err.find("t.trace:" + std::to_string(c.line) + ": ") == 0);
    CHECK(err.find(c.words) != std::string::npos);
  }
}

TEST_CASE("an unreadable file is a trace error, not a crash", "[bfc][trace]") {
  CHECK_THROWS_AS(allocsim::load_bfc_trace("/nonexistent/dir/none.trace"), BfcTraceError);
  CHECK_THROWS_AS(allocsim::load_bfc_trace(ALLOCSIM_SOURCE_DIR), BfcTraceError);  // a directory
}
