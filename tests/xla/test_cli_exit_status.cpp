// `allocsim xla-check` end to end on hand-made files: exit 0 on a match, 1 on a mismatch (with the
// report on stdout), 2 on bad input (one message on stderr, nothing on stdout). ALLOCSIM_CLI is
// the built binary (tests/xla/CMakeLists.txt).
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "temp_dir.h"
#include "xspace_builder.h"

namespace {

struct CliRun {
  int status;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

CliRun xla_check(const allocsim::test::TempDir& dir, const std::string& bytes) {
  const auto profile = dir.path / "p.xplane.pb";
  std::ofstream(profile, std::ios::binary) << bytes;
  const std::string cmd = std::string("'") + ALLOCSIM_CLI + "' xla-check '" + profile.string() + "' >'" +
                          (dir.path / "out").string() + "' 2>'" + (dir.path / "err").string() + "'";
  const int raw = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(raw));
  return {WEXITSTATUS(raw), slurp(dir.path / "out"), slurp(dir.path / "err")};
}

allocsim::test::Recorder two_allocations() {
  allocsim::BfcOptions o;
  o.memory_limit = std::uint64_t{1} << 30;
  o.allow_growth = false;
  allocsim::test::Recorder rec(o, {0x7f0000000000});
  rec.free(rec.alloc(4096));
  rec.alloc(300);
  return rec;
}

}  // namespace

TEST_CASE("xla-check CLI: exit 0 when every event matches", "[xla][cli]") {
  allocsim::test::TempDir dir;
  const CliRun r = xla_check(dir, two_allocations().xspace());
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("result      MATCH: 3 of 3 events agree"));
  CHECK(r.err.empty());
}

TEST_CASE("xla-check CLI: exit 1 and the first differing event on a mismatch", "[xla][cli]") {
  allocsim::test::TempDir dir;
  allocsim::test::Recorder rec = two_allocations();
  rec.records[2].chunk *= 2;
  const CliRun r = xla_check(dir, rec.xspace());
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("MISMATCH at event 2 of 3"));
  CHECK(r.err.empty());
}

TEST_CASE("xla-check CLI: exit 2 with a message on bad input", "[xla][cli]") {
  allocsim::test::TempDir dir;
  const std::string bytes = two_allocations().xspace();
  const CliRun r = xla_check(dir, bytes.substr(0, bytes.size() / 2));
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err,
             Catch::StartsWith("allocsim: ") && Catch::Contains("p.xplane.pb: not an XSpace protobuf"));
}
