// Platform profile JSON: round trip of every field, defaults for missing keys, and clear errors for
// unknown keys, wrong types, negative values and unreadable files.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "allocsim/results/platform_io.h"

using namespace allocsim;

namespace {
PlatformProfile odd_profile() {  // every field different from its default and from each other
  PlatformProfile p;
  TimeNs next = 2;
  for (const PlatformField& f : kPlatformFields) {
    if (is_platform_switch(f)) p.*f.ns = 1;  // a switch: 0 or 1, default 0
    else if (f.ns) p.*f.ns = next++;
    else p.*f.ratio = 0.125;
  }
  return p;
}
bool same(const PlatformProfile& a, const PlatformProfile& b) {
  for (const PlatformField& f : kPlatformFields)
    if (platform_value(a, f) != platform_value(b, f)) return false;
  return true;
}
// A number the platform file carries beside the spread (no profile field): written under `key`,
// read back as set, and the profile read from the same text is the default one.
void check_round_trips_beside_spread(double PlatformSpread::*field, double value, const std::string& key) {
  PlatformSpread s;
  s.*field = value;
  CHECK(!s.empty());
  const std::string text = platform_to_json(PlatformProfile{}, s);
  CHECK(text.find("\"" + key + "\": ") != std::string::npos);
  CHECK(spread_from_json(text).*field == value);
  CHECK(same(platform_from_json(text), PlatformProfile{}));
}
}  // namespace

TEST_CASE("platform profile round-trips every field", "[platform]") {
  const PlatformProfile p = odd_profile();
  const std::string text = platform_to_json(p);
  CHECK(same(platform_from_json(text), p));
  CHECK(!same(platform_from_json(text), PlatformProfile{}));
  for (const PlatformField& f : kPlatformFields)
    CHECK(text.find(std::string("\"") + f.name + "\": ") != std::string::npos);
  // a whole number written as one (odd_profile's value, unlike every other field's)
  CHECK(text.find("\"callback_latency_ns\": " + std::to_string(p.callback_latency_ns) + ",") != std::string::npos);
}

TEST_CASE("missing keys keep the defaults - fractional ns are rounded", "[platform]") {
  const PlatformProfile p = platform_from_json(R"({"callback_latency_ns": 50000.6})");
  CHECK(p.callback_latency_ns == 50001);
  PlatformProfile expected;
  expected.callback_latency_ns = 50001;
  CHECK(same(p, expected));
  CHECK(same(platform_from_json("{}"), PlatformProfile{}));
}

TEST_CASE("bad platform input is an error naming the problem", "[platform]") {
  CHECK_THROWS_WITH(platform_from_json(R"({"callback_latncy_ns": 1})", "cal.json"),
                    Catch::Contains("cal.json") && Catch::Contains("unknown key 'callback_latncy_ns'") &&
                        Catch::Contains("callback_latency_ns"));
  CHECK_THROWS_WITH(platform_from_json(R"({"event_query_ns": "fast"})"), Catch::Contains("must be a number"));
  CHECK_THROWS_WITH(platform_from_json(R"({"event_query_ns": -5})"),
                    Catch::Contains("negative duration: 'event_query_ns'"));
  CHECK_THROWS_WITH(platform_from_json(R"({"event_query_ns": 1e16})"), Catch::Contains("longer than 10^15 ns"));
  // the HIP backend divides by the spin rate: 0 is refused here as in YAML and --set
  CHECK_THROWS_WITH(platform_from_json(R"({"spin_ns_per_cycle": 0})"), Catch::Contains("positive number"));
  CHECK_THROWS_WITH(platform_from_json(R"({"callback_relay": 2})"), Catch::Contains("'callback_relay' is 0 or 1"));
  CHECK_THROWS_WITH(platform_from_json("[1, 2]"), Catch::Contains("expected a JSON object"));
  CHECK_THROWS_WITH(platform_from_json("{\"event_query_ns\": "), Catch::Contains("not valid JSON"));
  CHECK_THROWS_AS(load_platform_file("/nonexistent/dir/platform.json"), PlatformError);
}

TEST_CASE("platform file save and load", "[platform]") {
  const auto path = std::filesystem::temp_directory_path() / "allocsim_test_platform.json";
  save_platform_file(path.string(), odd_profile());
  CHECK(same(load_platform_file(path.string()), odd_profile()));
  std::filesystem::remove(path);
}

TEST_CASE("set override: platform keys override a profile - other keys are ignored", "[platform]") {
  PlatformProfile p = odd_profile();
  Params sets;
  sets.set("callback_latency_ns", 70000);
  sets.set("spin_ns_per_cycle", 0.5);
  sets.set("batch_size", 8);
  apply_platform_overrides(p, sets);
  CHECK(p.callback_latency_ns == 70000);
  CHECK(p.spin_ns_per_cycle == 0.5);
  CHECK(p.launch_overhead_ns == odd_profile().launch_overhead_ns);  // not overridden
}

TEST_CASE("set override: a platform value out of range is refused over a profile too", "[platform]") {
  PlatformProfile p = odd_profile();
  Params sets;
  sets.set("host_free_ns", -2);
  CHECK_THROWS_WITH(apply_platform_overrides(p, sets), Catch::Contains("negative duration: 'host_free_ns'"));
  CHECK(same(p, odd_profile()));
}

TEST_CASE("the defaults are the committed H200 calibration", "[platform]") {
  const PlatformProfile measured =
      load_platform_file(std::string(ALLOCSIM_SOURCE_DIR) + "/results/hw/h200/calibration.json");
  const PlatformProfile defaults;
  for (const PlatformField& f : kPlatformFields) {
    INFO(f.name);
    const std::string name = f.name;
    if (name == "device_op_gap_ns" || name == "op_check_ns_per_mib" || name == "op_fill_ns_per_mib") {
      CHECK(platform_value(defaults, f) == 0);  // the validation kernels' own: set by a calibration file
      continue;
    }
    if (f.ns) CHECK(platform_value(defaults, f) == platform_value(measured, f));
    else CHECK(platform_value(defaults, f) == Approx(platform_value(measured, f)).epsilon(1e-3));
  }
}

TEST_CASE("a platform file's spread round-trips and is checked", "[platform][spread]") {
  PlatformSpread s;
  const PlatformField& latency = *find_platform_field("callback_latency_ns");
  s.quantiles[platform_field_index(latency)] = {1, 2, 3, 4, 5, 6, 7};
  const std::string text = platform_to_json(PlatformProfile{}, s);
  CHECK(spread_from_json(text).quantiles[platform_field_index(latency)] == s.quantiles[platform_field_index(latency)]);
  CHECK(same(platform_from_json(text), PlatformProfile{}));  // the profile reader passes over it
  CHECK(spread_from_json(platform_to_json(PlatformProfile{})).empty());
  CHECK_THROWS_WITH(spread_from_json(R"({"spread": {"callback_latency_ns": [1, 2]}})"), Catch::Contains("7 quantiles"));
  CHECK_THROWS_WITH(spread_from_json(R"({"spread": {"callback_latency_ns": [1, 2, 3, 4, 5, 6, 0]}})"),
                    Catch::Contains("ascending"));
  CHECK_THROWS_WITH(spread_from_json(R"({"spread": {"nope_ns": [1, 2, 3, 4, 5, 6, 7]}})"), Catch::Contains("unknown key"));
}

TEST_CASE("a platform file's tails round-trip and are checked", "[platform][spread]") {
  PlatformSpread s;
  const std::size_t latency = platform_field_index(*find_platform_field("callback_latency_ns"));
  s.quantiles[latency] = {1, 2, 3, 4, 5, 6, 7};
  s.tails[latency] = {20, 900};
  const std::string text = platform_to_json(PlatformProfile{}, s);
  CHECK(text.find("\"spread_tail\": {") != std::string::npos);
  const PlatformSpread back = spread_from_json(text);
  CHECK(back.tails[latency] == s.tails[latency]);
  CHECK(back.quantiles[latency] == s.quantiles[latency]);
  CHECK(same(platform_from_json(text), PlatformProfile{}));  // the profile reader passes over it too
  const std::string q = R"("spread": {"callback_latency_ns": [1, 2, 3, 4, 5, 6, 7]})";
  CHECK_THROWS_WITH(spread_from_json("{" + q + R"(, "spread_tail": {"callback_latency_ns": [20]}})"),
                    Catch::Contains("2 to 1001 values"));
  // More points than 2 (calibrate writes kTailPoints) read back as written.
  s.tails[latency] = {20, 30, 40, 900};
  CHECK(spread_from_json(platform_to_json(PlatformProfile{}, s)).tails[latency] == s.tails[latency]);
  CHECK_THROWS_WITH(spread_from_json("{" + q + R"(, "spread_tail": {"callback_latency_ns": [20, 30, 25, 900]}})"),
                    Catch::Contains("ascending from the field's p99"));
  CHECK_THROWS_WITH(spread_from_json("{" + q + R"(, "spread_tail": {"callback_latency_ns": [6, 900]}})"),
                    Catch::Contains("ascending from the field's p99"));
  CHECK_THROWS_WITH(spread_from_json("{" + q + R"(, "spread_tail": {"callback_run_ns": [20, 900]}})"),
                    Catch::Contains("no quantiles"));
  CHECK_THROWS_WITH(spread_from_json("{" + q + R"(, "spread_tail": {"nope_ns": [20, 900]}})"),
                    Catch::Contains("unknown key"));
}

TEST_CASE("a platform file's host pace round-trips and is checked", "[platform][spread]") {
  PlatformSpread s;
  s.host_pace = {0.9, 0.95, 0.98, 1.0, 1.05, 1.2, 1.9};
  CHECK(!s.empty());
  const std::string text = platform_to_json(PlatformProfile{}, s);
  CHECK(text.find("\"host_pace\": [") != std::string::npos);
  CHECK(spread_from_json(text).host_pace == s.host_pace);
  CHECK(same(platform_from_json(text), PlatformProfile{}));
  CHECK_THROWS_WITH(spread_from_json(R"({"spread": {"host_pace": [0, 1, 1, 1, 1, 1, 1]}})"),
                    Catch::Contains("positive factors"));
  CHECK_THROWS_WITH(spread_from_json(R"({"spread": {"host_pace": [1, 1, 1, 1, 1, 2, 1.5]}})"),
                    Catch::Contains("ascending"));
  CHECK_THROWS_WITH(spread_from_json(R"({"spread": {"host_pace": [1, 1]}})"), Catch::Contains("7 quantiles"));
}

TEST_CASE("a platform file's host-pace reference round-trips beside the spread and is checked", "[platform][spread]") {
  check_round_trips_beside_spread(&PlatformSpread::host_pace_reference_ns, 1602000.5, "host_pace_reference_ns");
  CHECK(spread_from_json(platform_to_json(PlatformProfile{})).host_pace_reference_ns == 0);
  CHECK_THROWS_WITH(spread_from_json(R"({"host_pace_reference_ns": 0})"), Catch::Contains("positive duration"));
  CHECK_THROWS_WITH(spread_from_json(R"({"host_pace_reference_ns": "fast"})"), Catch::Contains("must be a number"));
}

TEST_CASE("a spread is drawn by its quantiles: linear between levels, p99 above the last", "[platform][spread]") {
  const std::vector<double> q = {0, 10, 25, 50, 75, 90, 99};
  CHECK(PlatformSpread::at(q, 0.0) == Approx(0));
  CHECK(PlatformSpread::at(q, 0.05) == Approx(5));
  CHECK(PlatformSpread::at(q, 0.5) == Approx(50));
  CHECK(PlatformSpread::at(q, 0.95) == Approx(95));
  CHECK(PlatformSpread::at(q, 0.999) == Approx(99));
  // With a tail, above p99 the draw goes on linearly through p99.9 to the largest sample.
  const std::vector<double> tail = {200, 1000};
  CHECK(PlatformSpread::at(q, tail, 0.5) == Approx(50));
  CHECK(PlatformSpread::at(q, tail, 0.99) == Approx(99));
  CHECK(PlatformSpread::at(q, tail, 0.9945) == Approx(149.5));
  CHECK(PlatformSpread::at(q, tail, 0.999) == Approx(200));
  CHECK(PlatformSpread::at(q, tail, 0.9995) == Approx(600));
  CHECK(PlatformSpread::at(q, {}, 0.9995) == Approx(99));
  std::vector<double> samples;
  for (int i = 0; i <= 1000; ++i) samples.push_back(double(1000 - i));
  const std::vector<double> measured = spread_quantiles(samples);
  REQUIRE(measured.size() == kSpreadLevels.size());
  CHECK(measured.front() == 0);
  CHECK(measured[3] == 500);
  CHECK(measured.back() == 990);
  CHECK(spread_tail(samples, 2) == std::vector<double>{999, 1000});
}

TEST_CASE("a tail of many points keeps a rare stall as rare as the samples had it", "[platform][spread]") {
  const std::vector<double> q = {0, 10, 25, 50, 75, 90, 99};
  // 20,000 samples 1..20,000 ns, but the largest a stall of 1 s: one in 20,000.
  std::vector<double> samples;
  for (int i = 1; i <= 20000; ++i) samples.push_back(double(i));
  samples.back() = 1e9;
  const std::vector<double> tail = spread_tail(samples);
  REQUIRE(tail.size() == kTailPoints);
  CHECK(tail.front() == 19980);  // p99.9: the sample at nearest rank 0.999 x 19,999
  CHECK(tail[kTailPoints - 2] == 19998);
  CHECK(tail.back() == 1e9);
  // Up to the last point but one the draws stay within the ordinary samples: only the top
  // 1 / (kTailPoints - 1) of the 0.1% reaches toward the stall, where two points would have spread
  // all of it evenly up to 1 s.
  CHECK(PlatformSpread::at(q, tail, tail_level(kTailPoints - 2, kTailPoints)) == Approx(19998));
  CHECK(PlatformSpread::at(q, tail, 0.9995) < 20000);
  CHECK(PlatformSpread::at(q, spread_tail(samples, 2), 0.9995) > 4e8);
  CHECK(PlatformSpread::at(q, tail, 1.0) == Approx(1e9));
  CHECK(tail_level(0, 2) == 0.999);
  CHECK(tail_level(1, 2) == 1.0);
  CHECK(tail_level(5, kTailPoints) == Approx(0.9995));
}

TEST_CASE("a platform file's host-pace level round-trips beside the spread, is left out at 1, and is checked",
          "[platform][spread]") {
  check_round_trips_beside_spread(&PlatformSpread::host_pace_level, 0.7993, "host_pace_level");
  // Files from before the level, and spreads without one, read and write as they did.
  CHECK(spread_from_json(platform_to_json(PlatformProfile{})).host_pace_level == 1);
  CHECK(platform_to_json(PlatformProfile{}, PlatformSpread{}).find("host_pace_level") == std::string::npos);
  CHECK_THROWS_WITH(spread_from_json(R"({"host_pace_level": 0})"), Catch::Contains("positive factor"));
  CHECK_THROWS_WITH(spread_from_json(R"({"host_pace_level": 1000})"), Catch::Contains("positive factor"));
  CHECK_THROWS_WITH(spread_from_json(R"({"host_pace_level": "slow"})"), Catch::Contains("must be a number"));
}

TEST_CASE("a profile's first field still unmeasured (calibrate's negative mark) is named", "[platform]") {
  PlatformProfile p;
  CHECK(first_unmeasured_field(p) == nullptr);
  p.signal_wakeup_ns = -1;
  REQUIRE(first_unmeasured_field(p) != nullptr);
  CHECK(std::string(first_unmeasured_field(p)->name) == "signal_wakeup_ns");
  p.spin_ns_per_cycle = std::nan("");  // a ratio with no measurement
  CHECK(first_unmeasured_field(p) != nullptr);
}
