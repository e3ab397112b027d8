// LifetimeFindings (see engine/lifetime_findings.h).
#include "lifetime_findings.h"

#include <utility>

namespace allocsim {

void LifetimeFindings::allocated(const BufferInfo& buf) {
  by_chunk_[key(buf.chunk)] = std::uint32_t(instances_.size());
  instances_.push_back(Instance{buf});
  ++outstanding_;
}

LifetimeFindings::Instance* LifetimeFindings::holding(const Chunk& chunk) {
  auto it = by_chunk_.find(key(chunk));
  return it == by_chunk_.end() ? nullptr : &instances_[it->second];
}

void LifetimeFindings::released(const Chunk& chunk, TimeNs t) {
  if (Instance* in = holding(chunk)) in->release_time = t;
}

void LifetimeFindings::returned(const Chunk& chunk) {
  auto it = by_chunk_.find(key(chunk));
  if (it == by_chunk_.end()) return;
  instances_[it->second].returned = true;
  --outstanding_;
  by_chunk_.erase(it);
}

bool LifetimeFindings::keep(FindingKind k) {
  if (k == FindingKind::Leak && leak_records_++ >= kMaxLeakRecords) return false;
  return records_.size() + end_records_.size() < max_records_;
}

void LifetimeFindings::report(Finding f) {
  ++counts_[std::size_t(f.kind)];
  if (keep(f.kind)) records_.push_back(std::move(f));
}

void LifetimeFindings::report_leak(Finding f, const Chunk& chunk) {
  if (Instance* in = holding(chunk)) {
    if (in->leak_reported) return;
    in->leak_reported = true;
  }
  report(std::move(f));
}

}  // namespace allocsim
