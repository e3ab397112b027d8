// ScenarioError: every problem with scenario input (YAML, built-in, PyTorch snapshot, `--set`).
// The message always starts with "FILE:LINE:COL: " (1-based; 0:0 when the problem has no place in
// the file, e.g. a bad `--set` key) so editors can jump to it; the CLI maps it to exit status 2.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

namespace allocsim {

class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(const std::string& file, std::size_t line, std::size_t col, const std::string& what)
      : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what),
        file_(file), line_(line), col_(col), detail_(what) {}
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }
  std::size_t column() const { return col_; }
  /// The message without the "FILE:LINE:COL: " prefix.
  const std::string& detail() const { return detail_; }

 private:
  std::string file_;
  std::size_t line_;
  std::size_t col_;
  std::string detail_;
};

}  // namespace allocsim
