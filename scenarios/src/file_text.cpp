// Whole-file reads with gzip support through Boost.Iostreams + zlib (see file_text.h).
#include "file_text.h"

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/device/array.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <fstream>
#include <iterator>
#include <sstream>

#include "allocsim/scenarios/scenario_error.h"

namespace allocsim::scenario_detail {

bool looks_gzipped(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& bytes, const std::string& file, std::size_t max_bytes) {
  namespace io = boost::iostreams;
  std::string out;
  try {
    io::filtering_istream in;
    in.push(io::gzip_decompressor());
    in.push(io::array_source(bytes.data(), bytes.size()));
    char buf[65536];
    while (in) {
      in.read(buf, sizeof buf);
      std::streamsize got = in.gcount();
      if (got <= 0) break;
      if (out.size() + static_cast<std::size_t>(got) > max_bytes)
        throw ScenarioError(file, 0, 0, "decompressed content is larger than " + std::to_string(max_bytes) + " bytes");
      out.append(buf, static_cast<std::size_t>(got));
    }
    if (in.bad()) throw ScenarioError(file, 0, 0, "corrupt gzip data");
  } catch (const ScenarioError&) {
    throw;
  } catch (const std::exception& e) {
    throw ScenarioError(file, 0, 0, std::string("corrupt gzip data: ") + e.what());
  }
  return out;
}

std::string read_input_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ScenarioError(path, 0, 0, "cannot open file");
  std::string bytes;
  char buf[65536];
  while (f) {
    f.read(buf, sizeof buf);
    std::streamsize got = f.gcount();
    if (got <= 0) break;
    if (bytes.size() + static_cast<std::size_t>(got) > max_bytes)
      throw ScenarioError(path, 0, 0, "file is larger than " + std::to_string(max_bytes) + " bytes");
    bytes.append(buf, static_cast<std::size_t>(got));
  }
  if (f.bad()) throw ScenarioError(path, 0, 0, "error while reading the file");
  return looks_gzipped(bytes) ? gunzip(bytes, path, max_bytes) : bytes;
}

}  // namespace allocsim::scenario_detail
