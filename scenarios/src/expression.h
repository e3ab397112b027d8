// Numeric expressions in scenario files: "4MiB", "1.5ms", "${x_bytes} * 2", "${layers - 1 - i}".
//
// Grammar:  expr := term (('+'|'-') term)* ; term := unary (('*'|'/') unary)* ;
//           unary := '-' unary | primary ;
//           primary := NUMBER [UNIT] | '(' expr ')' | '$' NAME | '${' expr '}' | NAME (inside ${ })
// `$name` is the form to use inside YAML flow maps ({size: $x}), where braces are YAML syntax.
// Units: sizes B KiB MiB GiB TiB KB MB GB; times ns us ms s (the value is in bytes / ns).
// Every intermediate result is checked: not finite or |v| > 2^62 is an arithmetic overflow.
#pragma once
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace allocsim::scenario_detail {

enum class UnitKind { None, Bytes, Time, Any };

/// Thrown with the 0-based column inside the expression text; the caller adds the file position.
struct ExpressionError : std::runtime_error {
  ExpressionError(std::size_t column, const std::string& what) : std::runtime_error(what), column(column) {}
  std::size_t column;
};

using Variables = std::map<std::string, double, std::less<>>;

/// Evaluates `text`; units must be of kind `allowed` (Any accepts both, None accepts neither).
double evaluate_expression(std::string_view text, const Variables& vars, UnitKind allowed);

/// Replaces each "${expr}" in `text` by the integer value of expr ("act${i}" -> "act3").
std::string interpolate_name(std::string_view text, const Variables& vars);

}  // namespace allocsim::scenario_detail
