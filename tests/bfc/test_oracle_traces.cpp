// Differential test against the real tsl::BFCAllocator: every trace in
// tests/data/tsl_bfc/traces must replay to exactly the bytes in expected/. The folder is
// listed at run time, so traces added later are covered without editing this file.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "allocsim/pool/bfc_trace.h"
#include "test_inputs.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// First differing line, for a readable failure.
std::string first_difference(const std::string& got, const std::string& want) {
  std::istringstream g(got), w(want);
  std::string gl, wl;
  for (int line = 1;; ++line) {
    const bool gok = static_cast<bool>(std::getline(g, gl)), wok = static_cast<bool>(std::getline(w, wl));
    if (!gok && !wok) return "identical lines (difference in trailing bytes)";
    if (gl != wl || gok != wok)
      return "line " + std::to_string(line) + ": got '" + (gok ? gl : "<end>") + "', expected '" + (wok ? wl : "<end>") + "'";
  }
}

}  // namespace

TEST_CASE("every oracle trace replays byte-identically to the real TSL BFC", "[bfc][oracle]") {
  const fs::path root = allocsim::test::require_data("tsl_bfc/traces");
  std::vector<fs::path> traces;
  for (const auto& e : fs::directory_iterator(root))
    if (e.path().extension() == ".trace") traces.push_back(e.path());
  std::sort(traces.begin(), traces.end());
  REQUIRE(!traces.empty());

  std::size_t passed = 0;
  for (const fs::path& trace : traces) {
    const fs::path expected = root.parent_path() / "expected" / (trace.stem().string() + ".out");
    INFO("trace " << trace.filename().string());
    REQUIRE(fs::exists(expected));
    const std::string got = allocsim::replay_bfc_trace(allocsim::load_bfc_trace(trace.string()));
    const std::string want = slurp(expected);
    if (got == want) {
      ++passed;
    } else {
      FAIL_CHECK(trace.stem().string() << " differs: " << first_difference(got, want));
    }
  }
  std::cerr << "tsl_bfc oracle: " << passed << "/" << traces.size() << " traces byte-identical\n";
  CHECK(passed == traces.size());
}
