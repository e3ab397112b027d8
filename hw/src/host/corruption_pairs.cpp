// CorruptionPairTally: see corruption_pairs.h.
#include "allocsim/hw/corruption_pairs.h"

#include <algorithm>
#include <set>

namespace allocsim::hw {

void CorruptionPairTally::add_trial(const std::vector<ForeignSource>& sources) {
  std::set<std::pair<BufferId, int>> seen;
  for (const ForeignSource& s : sources) {
    Count& c = counts_[{s.reader, s.writer}];
    c.hw_words += s.words;
    if (seen.insert({s.reader, s.writer}).second) ++c.hw_trials;
  }
}

void CorruptionPairTally::add_sim_run(const std::vector<Finding>& findings) {
  std::set<std::pair<BufferId, int>> seen;
  for (const Finding& f : findings) {
    if (f.kind != FindingKind::Manifest) continue;
    // The victim is the side that read (execution_units.cpp's rule); the other side wrote.
    const bool first_reads = !f.first.write;
    const FindingSide& victim = first_reads ? f.first : f.second;
    const FindingSide& clobber = first_reads ? f.second : f.first;
    const int writer = clobber.op == "memset" ? ForeignSource::kZeroing : int(clobber.alloc);
    if (seen.insert({victim.alloc, writer}).second) ++counts_[{victim.alloc, writer}].sim_runs;
  }
}

std::vector<CorruptionPair> CorruptionPairTally::pairs() const {
  auto name = [&](int b) {
    if (b == ForeignSource::kZeroing) return std::string("(zeroing)");
    if (b == ForeignSource::kEarlierTrial) return std::string("(earlier trial)");
    return b >= 0 && std::size_t(b) < program_.buffer_names.size() ? program_.buffer_names[std::size_t(b)]
                                                                     : "#" + std::to_string(b);
  };
  auto unit = [&](int b) {
    return b >= 0 && std::size_t(b) < units_.unit_of_buffer.size() ? units_.unit_of_buffer[std::size_t(b)] : -1;
  };
  std::vector<CorruptionPair> out;
  for (const auto& [key, c] : counts_) {
    CorruptionPair p;
    p.reader = name(key.first);
    p.reader_execution = std::max(0, unit(key.first));
    p.writer = name(key.second);
    p.writer_execution = unit(key.second);
    p.hw_trials = c.hw_trials;
    p.hw_words = c.hw_words;
    p.sim_runs = c.sim_runs;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace allocsim::hw
