// results/hw/h200-deep-tail/headline.md is what hw/scripts/validation_headline.py computes from the
// two passes' summaries and files (and h200-deep-tail-2's repeat pass), and README.md quotes it
// verbatim (scripts/quote_headline.py): a hand edit of either, or new data without a rerun, fails here.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "test_inputs.h"

TEST_CASE("the H200 validation headline is computed from its passes and README quotes it", "[hw][summary]") {
  const std::string python = ALLOCSIM_TEST_PYTHON;
  allocsim::test::require_tool(!python.empty() && python.find("NOTFOUND") == std::string::npos, "python3 not found");
  const std::string root = ALLOCSIM_SOURCE_DIR;
  const std::string cmd = python + " " + root + "/hw/scripts/validation_headline.py " + root +
                          "/results/hw/h200-deep-tail " + root + "/results/hw/h200-deep-tail-2 --check";
  INFO(cmd);
  CHECK(std::system(cmd.c_str()) == 0);

  const std::string headline = allocsim::test::read_text_file(root + "/results/hw/h200-deep-tail/headline.md");
  REQUIRE_FALSE(headline.empty());
  CHECK(allocsim::test::readme_quote("results/hw/h200-deep-tail/headline.md") == headline);
}
