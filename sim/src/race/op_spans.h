// The start, end, stream and label of every device op of a run, by op_seq: finding records are
// written at finish() and name the ops of both accesses, which may have ended long before.
//
// Why packed: there is one span per device op, so this is the detector's largest store after the
// allocation records. 16 bytes a span in zeroed blocks (zero = no span) halve the memory and the
// block set-up that a 32-byte record initialised to -1 cost. A span that does not fit (an op longer
// than 4.29 s, a stream or label index past 65534) goes to a side map.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include "allocsim/core/observer.h"

namespace allocsim::race {

class OpSpans {
 public:
  struct Span {
    TimeNs start = -1, end = -1;
    StreamId stream = kNoStream;
    std::string_view label;
  };

  void record(const DeviceOpSpan& s) {
    const std::int32_t label = intern(s.label);
    const std::uint64_t block = s.op_seq >> kBlockBits;
    const TimeNs length = s.end - s.start;
    const bool fits = block < kMaxBlocks && length >= 0 && length <= TimeNs(UINT32_MAX) && s.stream + 1 >= 0 &&
                      s.stream + 1 < kTooBig && label + 1 < kTooBig;
    if (!fits) {
      overflow_[s.op_seq] = {s.start, s.end, s.stream, label};
      return;
    }
    if (block >= blocks_.size()) blocks_.resize(block + 1);
    if (!blocks_[block]) blocks_[block] = std::make_unique<Packed[]>(std::size_t(1) << kBlockBits);  // zeroed
    blocks_[block][s.op_seq & kMask] = {s.start, std::uint32_t(length), std::uint16_t(s.stream + 1),
                                        std::uint16_t(label + 1)};
  }

  std::optional<Span> find(std::uint64_t op_seq) const {
    const std::uint64_t block = op_seq >> kBlockBits;
    if (block < blocks_.size() && blocks_[block]) {
      const Packed& p = blocks_[block][op_seq & kMask];
      if (p.label_plus1 != 0)
        return Span{p.start, p.start + TimeNs(p.length), StreamId(p.stream_plus1) - 1, labels_[p.label_plus1 - 1u]};
    }
    auto it = overflow_.find(op_seq);
    if (it == overflow_.end()) return std::nullopt;
    const Wide& w = it->second;
    return Span{w.start, w.end, w.stream, labels_[std::size_t(w.label)]};
  }

 private:
  static constexpr unsigned kBlockBits = 12;
  static constexpr std::uint64_t kMask = (std::uint64_t(1) << kBlockBits) - 1;
  static constexpr std::uint64_t kMaxBlocks = std::uint64_t(1) << 20;  // 4 G ops; later ones overflow
  static constexpr std::int64_t kTooBig = 0xFFFF;
  struct Packed {
    TimeNs start;
    std::uint32_t length;
    std::uint16_t stream_plus1;  // stream + 1 (0: kNoStream)
    std::uint16_t label_plus1;   // label index + 1 (0: no span recorded)
  };
  static_assert(sizeof(Packed) == 16);
  struct Wide {
    TimeNs start, end;
    StreamId stream;
    std::int32_t label;
  };

  // Label -> index. Labels outlive the run (observer.h), so a label is known by its address: a
  // small direct-mapped cache of addresses answers nearly every op without touching the text
  // (hashing and comparing label text per op showed in the profile); a new address is looked up by
  // text once.
  std::int32_t intern(std::string_view label) {
    Cached& c = cache_[(reinterpret_cast<std::uintptr_t>(label.data()) >> 3) & (kCache - 1)];
    if (c.data == label.data() && c.size == label.size()) return c.index;
    auto it = label_index_.find(std::string(label));
    if (it == label_index_.end()) {
      it = label_index_.emplace(std::string(label), std::int32_t(labels_.size())).first;
      labels_.emplace_back(label);
    }
    c = {label.data(), label.size(), it->second};
    return it->second;
  }
  struct Cached {
    const char* data = nullptr;
    std::size_t size = 0;
    std::int32_t index = -1;
  };
  static constexpr std::size_t kCache = 64;
  Cached cache_[kCache];

  std::vector<std::unique_ptr<Packed[]>> blocks_;
  boost::unordered_flat_map<std::uint64_t, Wide> overflow_;
  std::vector<std::string> labels_;
  boost::unordered_flat_map<std::string, std::int32_t> label_index_;
};

}  // namespace allocsim::race
