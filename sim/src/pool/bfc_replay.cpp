// Replay of an oracle trace into the oracle's output format (README "Output format"), built in
// memory so the caller prints all of it or nothing.
#include <charconv>

#include "allocsim/pool/bfc_trace.h"
#include "allocsim/pool/fake_sub_allocator.h"

namespace allocsim {
namespace {

constexpr Addr kOracleBase = Addr{1} << 32;  // the harness's fake address-space base

class Out {
 public:
  Out& operator<<(std::string_view s) {
    text_.append(s);
    return *this;
  }
  Out& operator<<(std::uint64_t v) { return number(v); }
  Out& operator<<(std::int64_t v) { return number(v); }
  std::string take() { return std::move(text_); }

 private:
  template <class Int>
  Out& number(Int v) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    text_.append(buf, end);
    return *this;
  }
  std::string text_;
};

}  // namespace

std::string replay_bfc_trace(const BfcTrace& trace) {
  Out out;
  FakeSubAllocator sub(trace.options, kOracleBase);
  sub.set_listener([&](bool added, Addr begin, std::uint64_t bytes) {
    out << (added ? "region+ " : "region- ") << std::uint64_t{begin - kOracleBase} << " " << bytes << "\n";
  });
  std::uint64_t ooms = 0, nulls = 0;
  {
    BfcPool pool(trace.options, sub);
    std::vector<std::optional<Addr>> live(trace.ids.size());
    for (const BfcTraceOp& op : trace.ops) {
      std::optional<Addr>& slot = live[op.slot];
      if (op.kind == BfcTraceOp::Kind::kFree) {
        if (slot) pool.deallocate(*slot);  // a failed allocation is freed as nullptr: ignored
        slot.reset();
        continue;
      }
      const std::int64_t id = trace.ids[op.slot];
      slot = pool.allocate(op.bytes, op.alignment == 0 ? 64 : op.alignment);
      if (slot) {
        out << id << " " << std::uint64_t{*slot - kOracleBase} << " " << pool.chunk_size(*slot) << "\n";
      } else if (op.bytes == 0) {
        out << id << " NULL\n";
        ++nulls;
      } else {
        out << id << " OOM\n";
        ++ooms;
      }
    }

    const BfcStats& s = pool.stats();
    auto stat = [&](std::string_view name, std::uint64_t v) { out << "stat " << name << " " << v << "\n"; };
    stat("bytes_in_use", s.bytes_in_use);
    stat("peak_bytes_in_use", s.peak_bytes_in_use);
    stat("bytes_reserved", 0);  // always 0 in this TSL version (README)
    stat("pool_bytes", s.pool_bytes);
    stat("peak_pool_bytes", s.peak_pool_bytes);
    stat("num_allocs", s.num_allocs);
    stat("largest_alloc_size", s.largest_alloc_size);
    stat("largest_free_block_bytes", s.largest_free_block_bytes);
    stat("bytes_limit", s.bytes_limit);
    stat("regions", sub.regions_held());
    stat("bfc_regions", pool.region_count());
    stat("next_region_bytes", pool.next_region_bytes());
    stat("region_allocs", sub.alloc_calls());
    stat("region_frees", sub.free_calls());
    stat("alloc_ops", trace.alloc_ops);
    stat("free_ops", trace.free_ops);
    stat("oom", ooms);
    stat("null", nulls);
    pool.for_each_chunk([&](Addr a, std::uint64_t size, bool used) {
      out << "chunk " << std::uint64_t{a - kOracleBase} << " " << size << (used ? " used\n" : " free\n");
    });
    sub.set_listener(nullptr);  // the pool's destructor returns its regions: not part of the output
  }
  return out.take();
}

}  // namespace allocsim
