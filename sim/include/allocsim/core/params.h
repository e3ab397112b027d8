// Named numeric parameters (`--set key=value`), read by policies, guards, scenarios and backends.
#pragma once
#include <map>
#include <optional>
#include <string>

namespace allocsim {

class Params {
 public:
  void set(const std::string& key, double value) { values_[key] = value; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  double get(const std::string& key, double fallback) const {
    auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
  }
  const std::map<std::string, double>& all() const { return values_; }

 private:
  std::map<std::string, double> values_;  // ordered: deterministic iteration for reports
};

}  // namespace allocsim
