// Recursive-descent evaluator for scenario expressions (see expression.h). Nesting is capped so a
// hostile "((((..." cannot overflow the stack.
#include "expression.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace allocsim::scenario_detail {
namespace {

constexpr double kMaxMagnitude = 4611686018427387904.0;  // 2^62
constexpr int kMaxDepth = 64;

struct Unit {
  std::string_view name;
  double factor;
  UnitKind kind;
};
constexpr Unit kUnits[] = {
    {"B", 1, UnitKind::Bytes},          {"KiB", 1024.0, UnitKind::Bytes},
    {"MiB", 1048576.0, UnitKind::Bytes}, {"GiB", 1073741824.0, UnitKind::Bytes},
    {"TiB", 1099511627776.0, UnitKind::Bytes}, {"KB", 1e3, UnitKind::Bytes},
    {"MB", 1e6, UnitKind::Bytes},       {"GB", 1e9, UnitKind::Bytes},
    {"ns", 1, UnitKind::Time},          {"us", 1e3, UnitKind::Time},
    {"ms", 1e6, UnitKind::Time},        {"s", 1e9, UnitKind::Time},
};

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Parser {
 public:
  Parser(std::string_view text, const Variables& vars, UnitKind allowed)
      : text_(text), vars_(vars), allowed_(allowed) {}

  double parse_all() {
    double v = expr();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "' in expression");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw ExpressionError(pos_, what); }

  double checked(double v) {
    if (!std::isfinite(v) || std::fabs(v) > kMaxMagnitude) fail("arithmetic overflow in expression");
    return v;
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  double expr() {
    if (++depth_ > kMaxDepth) fail("expression nested too deeply");
    double v = term();
    for (;;) {
      if (eat('+')) v = checked(v + term());
      else if (eat('-')) v = checked(v - term());
      else break;
    }
    --depth_;
    return v;
  }
  double term() {
    double v = unary();
    for (;;) {
      if (eat('*')) {
        v = checked(v * unary());
      } else if (eat('/')) {
        std::size_t at = pos_;
        double d = unary();
        if (d == 0) throw ExpressionError(at, "division by zero in expression");
        v = checked(v / d);
      } else {
        break;
      }
    }
    return v;
  }
  double unary() {
    if (eat('-')) {
      if (++depth_ > kMaxDepth) fail("expression nested too deeply");
      double v = -unary();
      --depth_;
      return v;
    }
    return primary();
  }
  double primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected a number, got the end of the expression");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      double v = expr();
      if (!eat(')')) fail("expected ')'");
      return v;
    }
    if (c == '$') {
      if (pos_ + 1 < text_.size() && is_name_start(text_[pos_ + 1])) {  // $name
        std::size_t start = ++pos_;
        while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
        std::string_view name = text_.substr(start, pos_ - start);
        auto it = vars_.find(name);
        if (it == vars_.end()) {
          pos_ = start;
          fail("unknown parameter '" + std::string(name) + "' (declare it under params:)");
        }
        return it->second;
      }
      if (pos_ + 1 >= text_.size() || text_[pos_ + 1] != '{') fail("expected a name or '{' after '$'");
      pos_ += 2;
      ++inside_braces_;
      double v = expr();
      --inside_braces_;
      if (!eat('}')) fail("expected '}' to close '${'");
      return v;
    }
    if (is_digit(c) || c == '.') return number();
    if (is_name_start(c)) {
      std::size_t start = pos_;
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
      std::string_view name = text_.substr(start, pos_ - start);
      if (inside_braces_ == 0) {
        pos_ = start;
        fail("unexpected name '" + std::string(name) + "' (write a parameter as ${" + std::string(name) + "})");
      }
      auto it = vars_.find(name);
      if (it == vars_.end()) {
        pos_ = start;
        fail("unknown parameter '" + std::string(name) + "' (declare it under params:)");
      }
      return it->second;
    }
    fail("unexpected '" + std::string(1, c) + "' in expression");
  }
  double number() {
    std::size_t start = pos_;
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t save = pos_;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ < text_.size() && is_digit(text_[pos_])) {
        while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
      } else {
        pos_ = save;  // "e" was not an exponent
      }
    }
    double v = 0;
    auto res = std::from_chars(text_.data() + start, text_.data() + pos_, v);
    if (res.ec != std::errc() || res.ptr != text_.data() + pos_) {
      pos_ = start;
      fail("malformed number");
    }
    checked(v);
    // optional unit, directly after the number or after spaces
    std::size_t unit_start = pos_;
    while (unit_start < text_.size() && text_[unit_start] == ' ') ++unit_start;
    std::size_t unit_end = unit_start;
    while (unit_end < text_.size() && is_name_char(text_[unit_end])) ++unit_end;
    if (unit_end == unit_start) return v;
    std::string_view unit = text_.substr(unit_start, unit_end - unit_start);
    for (const Unit& u : kUnits) {
      if (u.name != unit) continue;
      if (allowed_ != UnitKind::Any && allowed_ != u.kind) {
        pos_ = unit_start;
        fail(std::string("unit '") + std::string(unit) + "' is not allowed here (expected " +
             (allowed_ == UnitKind::Bytes ? "a size: B, KiB, MiB, GiB" :
              allowed_ == UnitKind::Time  ? "a time: ns, us, ms, s" : "a plain number") + ")");
      }
      pos_ = unit_end;
      return checked(v * u.factor);
    }
    pos_ = unit_start;
    fail("unknown unit '" + std::string(unit) + "' (sizes: B KiB MiB GiB TiB KB MB GB; times: ns us ms s)");
  }

  std::string_view text_;
  const Variables& vars_;
  UnitKind allowed_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  int inside_braces_ = 0;
};

}  // namespace

double evaluate_expression(std::string_view text, const Variables& vars, UnitKind allowed) {
  return Parser(text, vars, allowed).parse_all();
}

std::string interpolate_name(std::string_view text, const Variables& vars) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      std::size_t close = text.find('}', i + 2);
      if (close == std::string_view::npos) throw ExpressionError(i, "expected '}' to close '${' in name");
      std::string_view inner = text.substr(i, close - i + 1);
      double v;
      try {
        v = evaluate_expression(inner, vars, UnitKind::None);
      } catch (const ExpressionError& e) {
        throw ExpressionError(i + e.column, e.what());
      }
      if (v != std::floor(v)) throw ExpressionError(i, "a name may only interpolate whole numbers");
      out += std::to_string(static_cast<std::int64_t>(v));
      i = close + 1;
    } else if (text[i] == '$' && i + 1 < text.size() && is_name_start(text[i + 1])) {  // $name
      std::size_t end = i + 1;
      while (end < text.size() && is_name_char(text[end])) ++end;
      double v = evaluate_expression(text.substr(i, end - i), vars, UnitKind::None);
      if (v != std::floor(v)) throw ExpressionError(i, "a name may only interpolate whole numbers");
      out += std::to_string(static_cast<std::int64_t>(v));
      i = end;
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace allocsim::scenario_detail
