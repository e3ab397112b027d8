// results/jax/ is generated (results/jax/make.sh) and committed; its README's hazard figures come
// from the committed hazards.json. This keeps those files honest: they must say what the analysis
// says of the profiles today, so a change of the model that is not re-run fails here.
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "allocsim/scenarios/xla_hazards.h"
#include "test_inputs.h"

using namespace allocsim::xla;

TEST_CASE("results/jax: the committed hazard findings are the analysis of the profiles", "[xla][hazards]") {
  // <root>/tests/data/jax_profiles -> <root>
  const std::filesystem::path root = std::filesystem::path(allocsim::test::data_path("jax_profiles"))
                                         .parent_path()
                                         .parent_path()
                                         .parent_path();
  const std::filesystem::path results = root / "results" / "jax";
  std::vector<std::string> names;  // every profile of the data set, as make.sh runs them
  for (const auto& e : std::filesystem::directory_iterator(root / "tests" / "data" / "jax_profiles")) {
    const std::string file = e.path().filename().string();
    if (file.ends_with(".xplane.pb.gz")) names.push_back(file.substr(0, file.size() - std::string(".xplane.pb.gz").size()));
  }
  REQUIRE(names.size() >= 4);
  for (const std::string& name : names) {
    INFO(name);
    const std::string relative = std::string("tests/data/jax_profiles/") + name + ".xplane.pb.gz";
    allocsim::test::require_data(std::string("jax_profiles/") + name + ".xplane.pb.gz");
    // The committed files name the profile by its repository-relative path: read it as make.sh did.
    Profile profile = read_profile((root / relative).string());
    profile.source = relative;
    const Usage usage = map_usage(profile);
    const std::string fresh = hazards_json(profile, usage, find_hazards(profile, usage));
    std::ifstream in(results / name / "hazards.json", std::ios::binary);
    REQUIRE(in);
    std::ostringstream committed;
    committed << in.rdbuf();
    CHECK(boost::json::parse(committed.str()) == boost::json::parse(fresh));
  }
}

TEST_CASE("README quotes results/jax/headline.md verbatim", "[xla]") {
  // summarize.py computes the headline from the committed sweeps; scripts/quote_headline.py copies
  // it into README. A hand edit of either, or a rerun without the copy, fails here.
  const std::string headline = allocsim::test::read_text_file(std::string(ALLOCSIM_SOURCE_DIR) + "/results/jax/headline.md");
  REQUIRE_FALSE(headline.empty());
  CHECK(allocsim::test::readme_quote("results/jax/headline.md") == headline);
}
