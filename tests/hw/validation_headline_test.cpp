// The H200 validation headlines are what hw/scripts/validation_headline.py computes from their
// passes' summaries and files: results/hw/h200-handover-split/headline.md (the latest validation,
// with h200-handover-split-2's repeat pass, which README.md quotes verbatim through
// scripts/quote_headline.py) and h200-deep-tail's (with h200-deep-tail-2's). A hand edit of either, or new data without a rerun, fails here.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "test_inputs.h"

TEST_CASE("the H200 validation headline is computed from its passes and README quotes it", "[hw][summary]") {
  const std::string python = ALLOCSIM_TEST_PYTHON;
  allocsim::test::require_tool(!python.empty() && python.find("NOTFOUND") == std::string::npos, "python3 not found");
  const std::string root = ALLOCSIM_SOURCE_DIR;
  const std::string script = python + " " + root + "/hw/scripts/validation_headline.py " + root + "/results/hw/";
  for (const std::string& sessions : {"h200-handover-split " + root + "/results/hw/h200-handover-split-2",
                                       "h200-deep-tail " + root + "/results/hw/h200-deep-tail-2"}) {
    const std::string cmd = script + sessions + " --check";
    INFO(cmd);
    CHECK(std::system(cmd.c_str()) == 0);
  }
  const std::string headline = allocsim::test::read_text_file(root + "/results/hw/h200-handover-split/headline.md");
  REQUIRE_FALSE(headline.empty());
  CHECK(allocsim::test::readme_quote("results/hw/h200-handover-split/headline.md") == headline);
}
