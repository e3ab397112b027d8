// LifetimeFindings (see engine/lifetime_findings.h).
#include "allocsim/engine/lifetime_findings.h"

#include <utility>

namespace allocsim {

std::uint32_t LifetimeFindings::allocated(const BufferInfo& buf) {
  instances_.push_back(Instance{buf});
  ++outstanding_;
  return std::uint32_t(instances_.size() - 1);
}

void LifetimeFindings::returned(std::uint32_t inst) {
  Instance& in = instances_[inst];
  if (in.returned) return;
  in.returned = true;
  --outstanding_;
}

bool LifetimeFindings::keep(FindingKind k) {
  if (k == FindingKind::Leak && leak_records_++ >= kMaxLeakRecords) return false;
  return records_.size() + end_records_.size() < max_records_;
}

void LifetimeFindings::report(Finding f, std::int64_t inst) {
  if (f.kind == FindingKind::Leak && inst >= 0) {
    Instance& in = instances_[std::size_t(inst)];
    if (in.leak_reported) return;
    in.leak_reported = true;
  }
  ++counts_[std::size_t(f.kind)];
  if (keep(f.kind)) records_.push_back(std::move(f));
}

}  // namespace allocsim
