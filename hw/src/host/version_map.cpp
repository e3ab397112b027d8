// VersionMap: an interval map of pattern versions per allocation (see version_map.h).
#include "allocsim/hw/version_map.h"

#include <algorithm>

namespace allocsim::hw {

void VersionMap::write(std::uint64_t offset, std::uint64_t bytes, std::uint32_t version) {
  if (bytes == 0) return;
  const std::uint64_t end = offset + bytes;
  // Cut pieces that straddle the new range, then drop everything inside it.
  auto it = ranges_.lower_bound(offset);
  if (it != ranges_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > offset) {
      Piece tail{prev->second.end, prev->second.version};
      prev->second.end = offset;
      if (tail.end > end) ranges_[end] = Piece{tail.end, tail.version};
    }
  }
  it = ranges_.lower_bound(offset);
  while (it != ranges_.end() && it->first < end) {
    if (it->second.end > end) {
      Piece rest{it->second.end, it->second.version};
      ranges_.erase(it);
      ranges_[end] = rest;
      break;
    }
    it = ranges_.erase(it);
  }
  ranges_[offset] = Piece{end, version};
}

std::vector<VersionSegment> VersionMap::read(std::uint64_t offset, std::uint64_t bytes) const {
  std::vector<VersionSegment> out;
  const std::uint64_t end = offset + bytes;
  auto it = ranges_.upper_bound(offset);
  if (it != ranges_.begin()) --it;
  for (; it != ranges_.end() && it->first < end; ++it) {
    std::uint64_t b = std::max(it->first, offset), e = std::min(it->second.end, end);
    if (e > b) out.push_back({b, e - b, it->second.version});
  }
  return out;
}

}  // namespace allocsim::hw
