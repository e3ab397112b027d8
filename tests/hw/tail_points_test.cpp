// results/hw/h200-deep-tail/README.md says that its calibration's tails of kTailPoints points and
// the same tails cut to 2 (p99.9 and the largest sample) predict the same peak range for every
// combination of its every-policy pass. This checks that sentence against the committed files: the
// 2-point file is the calibration with only its tails cut, and each run's re-predicted range is its
// calibrated one.
#include <catch2/catch.hpp>

#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "allocsim/core/platform_spread.h"
#include "test_inputs.h"

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {
json::value read_json(const fs::path& p) { return json::parse(allocsim::test::read_text_file(p.string())); }
}  // namespace

TEST_CASE("h200-deep-tail: tails of 11 points and of 2 predict the same peak ranges", "[hw][calibration]") {
  const fs::path session = fs::path(ALLOCSIM_SOURCE_DIR) / "results/hw/h200-deep-tail";
  const fs::path cut_dir = session / "repredicted-two-point-tail";
  json::object calibration = read_json(session / "calibration.json").as_object();
  const json::object cut = read_json(cut_dir / "platform.json").as_object();

  // The calibration's tails have every point; the cut file has their first and last, and is
  // otherwise the calibration.
  json::object& tails = calibration.at(allocsim::kSpreadTailKey).as_object();
  REQUIRE(!tails.empty());
  for (auto& [field, values] : tails) {
    INFO(std::string(field));
    json::array& v = values.as_array();
    REQUIRE(v.size() == allocsim::kTailPoints);
    const json::array& c = cut.at(allocsim::kSpreadTailKey).at(field).as_array();
    REQUIRE(c.size() == 2);
    CHECK(c[0] == v.front());
    CHECK(c[1] == v.back());
    v = json::array{v.front(), v.back()};
  }
  CHECK(calibration == cut);

  int runs = 0, varying = 0;
  for (const auto& entry : fs::recursive_directory_iterator(cut_dir / "all")) {
    if (entry.path().filename() != "validate.json") continue;
    const json::value file = read_json(entry.path());  // named: the loop below refers into it
    for (const json::value& run : file.at("runs").as_array()) {
      const json::object& calibrated = run.at("sim").as_object();
      const json::object& two_point = run.at("sim_repredicted").as_object();
      INFO(entry.path().string() << " " << json::serialize(run.at("policy")) << " + " << json::serialize(run.at("guard")));
      CHECK(two_point.at("peak_bytes_in_use_min") == calibrated.at("peak_bytes_in_use_min"));
      CHECK(two_point.at("peak_bytes_in_use_max") == calibrated.at("peak_bytes_in_use_max"));
      ++runs;
      varying += calibrated.at("peak_bytes_in_use_min") != calibrated.at("peak_bytes_in_use_max");
    }
  }
  CHECK(runs == 224);   // every policy x guard at 8 points
  CHECK(varying > 20);  // ranges that a tail could have moved, not only fixed peaks
}
