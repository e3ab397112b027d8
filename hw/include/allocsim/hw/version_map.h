// Which pattern version each byte range of one allocation holds, as the host enqueued it.
//
// A read must check every word against the version the *program* last wrote there (stream order
// and the program's own events make that the right expectation for a race-free program). Writes
// may cover part of a buffer, so the host keeps an interval map per allocation and splits a read
// into segments of one version each. Unwritten bytes are not checked.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

namespace allocsim::hw {

struct VersionSegment {
  std::uint64_t offset = 0;  // from the start of the allocation
  std::uint64_t bytes = 0;
  std::uint32_t version = 0;
};

class VersionMap {
 public:
  /// Bytes [offset, offset+bytes) now hold `version` (later writes win where they overlap).
  void write(std::uint64_t offset, std::uint64_t bytes, std::uint32_t version);
  /// The written parts of [offset, offset+bytes), in address order, one version per segment.
  std::vector<VersionSegment> read(std::uint64_t offset, std::uint64_t bytes) const;
  /// A fresh version number for the next patterned write (1, 2, ...).
  std::uint32_t next_version() { return ++last_version_; }
  void clear() { ranges_.clear(); last_version_ = 0; }

 private:
  struct Piece {
    std::uint64_t end;
    std::uint32_t version;
  };
  std::map<std::uint64_t, Piece> ranges_;  // begin -> piece; pieces never overlap
  std::uint32_t last_version_ = 0;
};

}  // namespace allocsim::hw
