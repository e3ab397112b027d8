// Reading validate.json files back (the session summary, repredict): each error names the file.
// Internal to src/host.
#pragma once
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace allocsim::hw::validate_json_reading {

/// The file's top-level object; throws std::runtime_error when it is no JSON object.
inline boost::json::value read_object(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  boost::json::value root = boost::json::parse(text.str(), ec);
  if (ec || !root.is_object()) throw std::runtime_error(file.string() + ": not a validate.json (" + ec.message() + ")");
  return root;
}

/// o[key]; throws std::runtime_error naming the file and the key when it is missing.
inline const boost::json::value& field(const boost::json::object& o, const char* key, const std::filesystem::path& file) {
  const boost::json::value* v = o.if_contains(key);
  if (!v) throw std::runtime_error(file.string() + ": missing field '" + key + "'");
  return *v;
}

/// An array of numbers as doubles.
inline std::vector<double> numbers(const boost::json::value& v) {
  std::vector<double> out;
  for (const boost::json::value& x : v.as_array()) out.push_back(x.to_number<double>());
  return out;
}

}  // namespace allocsim::hw::validate_json_reading
