// Where a sweep keeps its finished jobs (private to results/src): journals, DIR/jobs/*.jsonl, one
// record per line, appended by the collector as each job arrives.
//
// Why journals and not a file per job: the collector writes every record on one thread. Creating
// and renaming a file costs a few hundred microseconds on a local ext4 disk and more on a cluster's
// shared filesystem (a metadata operation each), which made the collector the bottleneck of a
// sweep of millisecond jobs; an append is one write(). Each line goes out in one write() with
// O_APPEND and without fsync: a process that dies loses nothing write() accepted, and a line a
// crash of the machine left torn does not parse, or does not belong to its job, so it is run
// again, never trusted. Every process (a run, a shard) appends to a journal of its own, so shards
// sharing DIR never write to one file; reading takes every journal in DIR/jobs.
#pragma once
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace allocsim::results::detail {

class RecordJournal {
 public:
  /// Opens (creating) DIR/jobs/<name>.jsonl for appending. Throws FileWriteError.
  RecordJournal(const std::filesystem::path& dir, const std::string& name);
  ~RecordJournal();
  RecordJournal(const RecordJournal&) = delete;
  RecordJournal& operator=(const RecordJournal&) = delete;
  /// Appends one record (a line ending in '\n'). Throws FileWriteError.
  void append(const std::string& line);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

/// A journal name unique to this process: "run-<pid>", or "shard-<i>-of-<n>-<pid>".
std::string journal_name(int shard_index, int shard_count);

/// Every line of every journal in DIR/jobs that starts like a record ({"index":N,), by N, in the
/// order read. What they hold is checked by the caller, against the job N is.
std::map<std::size_t, std::vector<std::string>> read_journals(const std::filesystem::path& dir);

}  // namespace allocsim::results::detail
