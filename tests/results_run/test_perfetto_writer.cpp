// PerfettoWriter output: valid Chrome trace JSON with the structure Perfetto needs, checked event by
// event (tracks named, slices on the right tracks with the right times, counters, instants, flows).
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "allocsim/results/perfetto_writer.h"
#include "trace_checks.h"

using namespace allocsim;

namespace {

// A small hand-driven timeline: compute writes X, host releases X, the callback thread frees it,
// autotune gets the bytes and zeroes them.
void drive(PerfettoWriter& w) {
  w.on_stream_created(0, "compute");
  w.on_stream_created(1, "autotune");
  w.on_stream_created(2, "compute-callback");
  BufferInfo x;
  x.id = 0;
  x.chunk = {kSharedPool, 0x1000, 4096};
  w.on_alloc(kHostAgent, x, 0);
  w.on_memory(0, {4096, 0, 4096, 1 << 20});
  w.on_access(stream_agent(0), 1, 0, {0x1000, 4096}, true, 5000);
  w.on_device_op({1, 0, DeviceOpKind::Kernel, "fill", 1000, 5000});
  w.on_host_release(x, 2000);
  w.on_memory(2000, {0, 4096, 4096, 1 << 20});
  w.on_device_op({2, 2, DeviceOpKind::Marker, "callback-marker", 5000, 5000});
  w.on_callback_run(16000, 17000, "deferred free");
  w.on_pool_free(kCallbackAgent, x.chunk, 0, 16500);
  w.on_memory(16500, {0, 0, 0, 1 << 20});
  w.on_host_blocked(3000, 4500, "semaphore");
  w.on_access(stream_agent(1), 3, 1, {0x1000, 4096}, true, 18000);
  w.on_device_op({3, 1, DeviceOpKind::Memset, "memset", 17500, 18000});
  w.on_pool_destroyed(kSharedPool, 20000);
  w.on_end(20000);
}

}  // namespace

TEST_CASE("Perfetto trace has named tracks, slices, counters, instants and matched flows", "[perfetto]") {
  Program p;
  p.buffer_names = {"X", "scratch"};
  PerfettoWriter w(&p, "seed-repro");
  drive(w);
  const TraceSummary t = check_chrome_trace(w.json());

  // Tracks: host, callback thread, each stream.
  CHECK(t.thread_names.at(PerfettoWriter::kHostTid) == "host");
  CHECK(t.thread_names.at(PerfettoWriter::kCallbackTid) == "callback thread");
  CHECK(t.thread_names.at(PerfettoWriter::stream_tid(0)) == "stream compute");
  CHECK(t.thread_names.at(PerfettoWriter::stream_tid(1)) == "stream autotune");
  CHECK(t.thread_names.at(PerfettoWriter::stream_tid(2)) == "stream compute-callback");

  // The fill kernel: on compute, 1 us .. 5 us, args name its buffer and access.
  const auto* fill = t.find_slice("fill");
  REQUIRE(fill != nullptr);
  CHECK(fill->at("tid").as_int64() == PerfettoWriter::stream_tid(0));
  CHECK(fill->at("ts").as_double() == Approx(1.0));
  CHECK(fill->at("dur").as_double() == Approx(4.0));
  CHECK(fill->at("args").at("op").as_string() == "kernel");
  CHECK(fill->at("args").at("buffers").as_array().at(0).as_string() == "X write 0x1000+4096");
  const auto* memset = t.find_slice("memset");
  REQUIRE(memset != nullptr);
  CHECK(memset->at("tid").as_int64() == PerfettoWriter::stream_tid(1));
  CHECK(memset->at("args").at("buffers").as_array().at(0).as_string() == "scratch write 0x1000+4096");

  const auto* blocked = t.find_slice("blocked: semaphore");
  REQUIRE(blocked != nullptr);
  CHECK(blocked->at("tid").as_int64() == PerfettoWriter::kHostTid);
  CHECK(blocked->at("dur").as_double() == Approx(1.5));
  const auto* cb = t.find_slice("deferred free");
  REQUIRE(cb != nullptr);
  CHECK(cb->at("tid").as_int64() == PerfettoWriter::kCallbackTid);

  // Counters: each of the four, with the values fed (changes only: pool stays constant -> 1 sample).
  CHECK(t.counter_values.at("live") == std::vector<std::uint64_t>{4096, 0});
  CHECK(t.counter_values.at("pending") == std::vector<std::uint64_t>{0, 4096, 0});
  CHECK(t.counter_values.at("in_use") == std::vector<std::uint64_t>{4096, 0});
  CHECK(t.counter_values.at("pool") == std::vector<std::uint64_t>{1 << 20});

  // Instants: the release on the host, the pool free on the callback thread, the pool teardown.
  REQUIRE(t.instants.size() == 3);
  CHECK(t.instants.count({"release X", PerfettoWriter::kHostTid}) == 1);
  CHECK(t.instants.count({"pool free X", PerfettoWriter::kCallbackTid}) == 1);

  // One flow from the release (host, 2 us) to the return (callback thread, 16.5 us).
  REQUIRE(t.flows.size() == 1);
  const auto& flow = t.flows.begin()->second;
  CHECK(flow.start_tid == PerfettoWriter::kHostTid);
  CHECK(flow.end_tid == PerfettoWriter::kCallbackTid);
  CHECK(flow.start_ts == Approx(2.0));
  CHECK(flow.end_ts == Approx(16.5));
}

TEST_CASE("Perfetto trace is deterministic and sorted by time", "[perfetto]") {
  PerfettoWriter a, b;
  drive(a);
  drive(b);
  CHECK(a.json() == b.json());
  const TraceSummary t = check_chrome_trace(a.json());  // also checks the time order
  CHECK(t.events > 10);
}

TEST_CASE("a pool free without a host release gets an instant but no flow", "[perfetto]") {
  PerfettoWriter w;
  w.on_stream_created(0, "compute");
  w.on_pool_free(kHostAgent, {kSharedPool, 0, 256}, 7, 100);
  const TraceSummary t = check_chrome_trace(w.json());
  CHECK(t.instants.count({"pool free buffer 7", PerfettoWriter::kHostTid}) == 1);
  CHECK(t.flows.empty());
}
