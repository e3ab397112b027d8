// Reading scenario inputs whole: plain files, or gzip (detected by its magic bytes, not the name),
// with a size cap so a hostile file or a gzip bomb fails cleanly instead of exhausting memory.
#pragma once
#include <cstddef>
#include <string>

namespace allocsim::scenario_detail {

bool looks_gzipped(const std::string& bytes);

/// The decompressed content of gzip `bytes`; throws ScenarioError(file 0:0) on corrupt data or
/// when the result would exceed `max_bytes`.
std::string gunzip(const std::string& bytes, const std::string& file, std::size_t max_bytes);

/// The file's bytes (decompressed when gzip); throws ScenarioError when unreadable or too large.
std::string read_input_file(const std::string& path, std::size_t max_bytes);

}  // namespace allocsim::scenario_detail
