// Hand-made XSpace profiles for the XLA reader and check tests.
//
// A Recorder runs the calls on a BfcPool whose regions sit at addresses the test chooses (so a
// growing pool's regions can be unrelated, as cudaMalloc's are) and records, for each call, the
// event tsl::BFCAllocator would: address, sizes and the pool's stats after the call. A test may
// then alter a record (to make the profile disagree with the model) and serialise the whole as an
// XSpace with the generated protobuf classes, laid out as jax.profiler lays one out.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allocsim/pool/bfc_pool.h"
#include "xplane.pb.h"

namespace allocsim::test {

// Regions at the given bases, in order (the k-th region the pool asks for gets bases[k]).
class PlacedSubAllocator final : public SubAllocator {
 public:
  explicit PlacedSubAllocator(std::vector<Addr> bases) : bases_(std::move(bases)) {}
  std::optional<Addr> alloc(std::uint64_t, std::uint64_t) override {
    if (next_ == bases_.size()) return std::nullopt;
    return bases_[next_++];
  }
  void free(Addr, std::uint64_t) override {}
  bool supports_coalescing() const override { return false; }

 private:
  std::vector<Addr> bases_;
  std::size_t next_ = 0;
};

struct Record {
  bool alloc = true;
  int line = 0;  // index into Recorder::lines
  std::int64_t offset_ps = 0;
  Addr addr = 0;
  std::uint64_t requested = 0, chunk = 0, in_use = 0, peak = 0, available = 0;
};

class Recorder {
 public:
  Recorder(const BfcOptions& options, std::vector<Addr> region_bases)
      : options_(options),
        sub_(std::make_unique<PlacedSubAllocator>(std::move(region_bases))),
        pool_(std::make_unique<BfcPool>(options_, *sub_)) {}

  std::vector<std::string> lines = {"python3", "py_xla_callback/1"};
  std::vector<Record> records;
  std::string allocator = "GPU_0_bfc";

  Addr alloc(std::uint64_t bytes, int line = 0) {
    const Addr a = *pool_->allocate(bytes);
    push(true, line, a, bytes, pool_->chunk_size(a));
    return a;
  }
  void free(Addr a, int line = 0) {
    const std::uint64_t chunk = pool_->chunk_size(a);
    pool_->deallocate(a);
    push(false, line, a, 0, chunk);
  }

  // The profile as XSpace bytes: the allocator's events on a host plane (allocator_name as a ref,
  // as TSL writes it), one execute span, and a device plane with one stream and one kernel.
  std::string xspace() const {
    namespace pb = allocsim::xplane;
    pb::XSpace space;
    pb::XPlane& host = *space.add_planes();
    host.set_name("/host:CPU");
    const char* stat_names[] = {"allocator_name",  "addr",
                                "requested_bytes", "allocation_bytes",
                                "bytes_allocated", "peak_bytes_in_use",
                                "bytes_available", "bytes_reserved"};
    for (std::int64_t id = 1; id <= 8; ++id) (*host.mutable_stat_metadata())[id].set_name(stat_names[id - 1]);
    constexpr std::int64_t kAllocatorRef = 100;
    (*host.mutable_stat_metadata())[kAllocatorRef].set_name(allocator);
    (*host.mutable_event_metadata())[1].set_name("MemoryAllocation");
    (*host.mutable_event_metadata())[2].set_name("MemoryDeallocation");
    (*host.mutable_event_metadata())[3].set_name("CommonPjRtLoadedExecutable::Execute (jit_step)");
    std::vector<pb::XLine*> xlines;
    for (const std::string& name : lines) {
      pb::XLine* l = host.add_lines();
      l->set_name(name);
      l->set_timestamp_ns(1000);
      xlines.push_back(l);
    }
    pb::XEvent& exec = *xlines[0]->add_events();
    exec.set_metadata_id(3);
    exec.set_offset_ps(5);
    exec.set_duration_ps(7);
    for (const Record& r : records) {
      pb::XEvent& e = *xlines[std::size_t(r.line)]->add_events();
      e.set_metadata_id(r.alloc ? 1 : 2);
      e.set_offset_ps(r.offset_ps);
      auto stat = [&](std::int64_t id, std::uint64_t v) {
        pb::XStat& s = *e.add_stats();
        s.set_metadata_id(id);
        // As TSL stores a number it parsed: int64 when it fits, else uint64.
        if (v <= std::uint64_t(std::numeric_limits<std::int64_t>::max()))
          s.set_int64_value(std::int64_t(v));
        else
          s.set_uint64_value(v);
      };
      pb::XStat& name = *e.add_stats();
      name.set_metadata_id(1);
      name.set_ref_value(kAllocatorRef);
      stat(2, r.addr);
      stat(3, r.requested);
      stat(4, r.chunk);
      stat(5, r.in_use);
      stat(6, r.peak);
      stat(7, r.available);
      stat(8, 0);
    }
    pb::XPlane& device = *space.add_planes();
    device.set_name("/device:GPU:0");
    (*device.mutable_event_metadata())[1].set_name("fusion_kernel");
    pb::XLine& stream = *device.add_lines();
    stream.set_name("Stream #14(Compute)");
    stream.set_timestamp_ns(1000);
    pb::XEvent& kernel = *stream.add_events();
    kernel.set_metadata_id(1);
    kernel.set_offset_ps(9);
    kernel.set_duration_ps(11);
    std::string bytes;
    space.SerializeToString(&bytes);
    return bytes;
  }

 private:
  void push(bool alloc, int line, Addr a, std::uint64_t requested, std::uint64_t chunk) {
    const BfcStats& s = pool_->stats();
    clock_ps_ += 1000;
    records.push_back({alloc, line, clock_ps_, a, requested, chunk, s.bytes_in_use, s.peak_bytes_in_use,
                       options_.memory_limit - s.bytes_in_use});
  }

  BfcOptions options_;
  std::unique_ptr<PlacedSubAllocator> sub_;  // held by pointer: a Recorder can be returned by value
  std::unique_ptr<BfcPool> pool_;
  std::int64_t clock_ps_ = 0;
};

}  // namespace allocsim::test
