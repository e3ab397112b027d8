// Skip-or-fail for missing test inputs (see test_inputs.h for why).
#include "test_inputs.h"

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>

namespace allocsim::test {
namespace {

void skip_or_fail(const std::string& message) {
  if (std::getenv("CI") != nullptr) FAIL(message << " (CI must not skip tests)");
  std::cout << "SKIPPED: " << message << std::endl;
  std::cerr << "SKIPPED: " << message << std::endl;
  // _Exit: leave at once, as Catch2 v2 has no skip of its own; this process runs one test case
  // (catch_discover_tests), so nothing else is lost. Static destructors and the leak checker are
  // bypassed on purpose: a half-run test case owns state that is not meant to be torn down here.
  std::_Exit(kSkipReturnCode);
}

}  // namespace

std::string data_path(std::string_view relative) {
  return (std::filesystem::path(ALLOCSIM_TEST_DATA_DIR) / relative).string();
}

void require_input(const std::string& path, std::string_view what) {
  if (!std::filesystem::exists(path)) skip_or_fail(std::string(what) + " not found at " + path);
}

std::string require_data(std::string_view relative) {
  std::string path = data_path(relative);
  require_input(path, "test data tests/data/" + std::string(relative));
  return path;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string readme_quote(const std::string& name) {
  const std::string readme = read_text_file(std::string(ALLOCSIM_SOURCE_DIR) + "/README.md");
  const std::string open = "<!-- headline: " + name + " -->\n";
  const auto begin = readme.find(open);
  REQUIRE(begin != std::string::npos);
  const auto end = readme.find("<!-- /headline -->", begin);
  REQUIRE(end != std::string::npos);
  return readme.substr(begin + open.size(), end - begin - open.size());
}

std::string gunzip_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  REQUIRE(file.good());
  boost::iostreams::filtering_istream in;
  in.push(boost::iostreams::gzip_decompressor());
  in.push(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void require_tool(bool present, std::string_view reason) {
  if (!present) skip_or_fail(std::string(reason));
}

}  // namespace allocsim::test
