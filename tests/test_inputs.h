// Where the tests' inputs live, and what a test does when an input or a tool it needs is missing.
//
// Test data (oracle traces, PyTorch snapshots, ...) is carried in tests/data/ so that a clone of
// the repository alone passes its tests. A test whose input or toolchain is absent must not pass:
// it ends its process with kSkipReturnCode, which tests/CMakeLists.txt registers as CTest's
// SKIP_RETURN_CODE, so `ctest` lists it as skipped. Under CI (environment variable CI set, as
// .ci/run runs) nothing may be skipped, so the same call fails the test instead.
#pragma once
#include <string>
#include <string_view>

namespace allocsim::test {

/// CTest's SKIP_RETURN_CODE for every test program (the autotools convention).
inline constexpr int kSkipReturnCode = 77;

/// `relative` under tests/data/ of this source tree.
std::string data_path(std::string_view relative);

/// Skips the running test (or fails it under CI) unless `path` exists. `what` names the input in
/// the message, e.g. "the TSL BFC oracle traces".
void require_input(const std::string& path, std::string_view what);

/// data_path(relative), after require_input on it: the one call a test makes for a data file.
std::string require_data(std::string_view relative);

/// The whole text of a file; fails the running test when it cannot be read.
std::string read_text_file(const std::string& path);

/// What README.md quotes between `<!-- headline: NAME -->` and the next `<!-- /headline -->`
/// (scripts/quote_headline.py copies each computed headline there); fails the running test when
/// README has no such markers, since it must quote the headline, not paraphrase it.
std::string readme_quote(const std::string& name);

/// The whole text of a gzip file (the PyTorch traces); fails the running test when it cannot be read.
std::string gunzip_file(const std::string& path);

/// Skips the running test (or fails it under CI) with `reason` when `present` is false: for tools
/// (nvcc, gnuplot, HIP headers) rather than files.
void require_tool(bool present, std::string_view reason);

}  // namespace allocsim::test
