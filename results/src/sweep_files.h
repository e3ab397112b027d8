// File helpers private to the sweep/report code: whole-or-nothing writes (temp file in the same
// folder, flushed, then renamed over the target) and whole-file reads.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace allocsim::results::detail {

/// Writes `text` to `path` atomically (write_file_atomically). Throws FileWriteError on failure.
void write_whole_file(const std::filesystem::path& path, const std::string& text);
/// A job record: atomically, without fsync. The collector writes every record on one thread, and
/// an fsync each (milliseconds on a disk) would make it the bottleneck of a sweep of short jobs.
/// Durability is not lost: a record is checked when resume reads it back (it must parse and
/// belong to its job), so one a machine crash left torn or empty is run again, never trusted; a
/// process that dies loses nothing that write() accepted.
void write_record(const std::filesystem::path& path, const std::string& text);
/// nullopt when the file is missing or unreadable.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

}  // namespace allocsim::results::detail
