// results/jax/ is generated (results/jax/make.sh) and committed; its README's hazard figures come
// from the committed hazards.json. This keeps those files honest: they must say what the analysis
// says of the profiles today, so a change of the model that is not re-run fails here.
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

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
  for (const char* name : {"donate", "runahead", "mlp", "cnn"}) {
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
