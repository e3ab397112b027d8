// Tests that interrupt a sweep by hand edit its journals (DIR/jobs/*.jsonl, one record per line,
// results/src/sweep_journal.h): read every record by job index, or rewrite them all into one
// journal, dropping, cutting or replacing some.
#pragma once
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace allocsim::test {

/// Every line of every journal in DIR/jobs, by the job index it starts with.
inline std::map<std::size_t, std::string> journal_records(const std::filesystem::path& dir) {
  std::map<std::size_t, std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir / "jobs")) {
    if (e.path().extension() != ".jsonl") continue;
    std::ifstream in(e.path(), std::ios::binary);
    for (std::string line; std::getline(in, line);) out[std::stoull(line.substr(9))] = line;  // {"index":N,
  }
  return out;
}

/// Replaces DIR's journals with one holding `edit(index, line)` of each record (nothing: the
/// record is dropped; the text is written as it is, a line end added).
inline void rewrite_journals(const std::filesystem::path& dir,
                             const std::function<std::optional<std::string>(std::size_t, const std::string&)>& edit) {
  const auto records = journal_records(dir);
  for (const auto& e : std::filesystem::directory_iterator(dir / "jobs")) std::filesystem::remove(e.path());
  std::ofstream out(dir / "jobs" / "edited.jsonl", std::ios::binary);
  for (const auto& [index, line] : records)
    if (const auto text = edit(index, line)) out << *text << "\n";
}

}  // namespace allocsim::test
