// File helpers private to the sweep/report code: whole-or-nothing writes (temp file in the same
// folder, flushed, then renamed over the target) and whole-file reads.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace allocsim::results::detail {

/// Writes `text` to `path` atomically (write_file_atomically). Throws FileWriteError on failure.
void write_whole_file(const std::filesystem::path& path, const std::string& text);
/// nullopt when the file is missing or unreadable.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

}  // namespace allocsim::results::detail
