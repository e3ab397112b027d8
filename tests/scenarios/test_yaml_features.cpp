// Every YAML feature of docs/scenarios.md parses into the expected host ops.
#include <catch2/catch.hpp>

#include "scenario_test_util.h"

using namespace allocsim;
using allocsim::test::count_ops;
using allocsim::test::load_text;

TEST_CASE("header sections: params, defaults, semaphore, device, platform, streams") {
  Scenario s = load_text(R"(
name: demo
description: one line
params: {big: 2GiB, lat: 20us}
defaults: {policy: host-sync, guard: wait-compute, seed: 7}
semaphore: 4
device: {total_memory: "${big} * 2", preallocate: 0.75, allow_growth: true, gc: yes, fragmentation_fraction: 0.5, private_pool_limit: 64MiB}
platform: {callback_latency_ns: $lat, launch_overhead_ns: 2us, spin_ns_per_cycle: 0.25}
streams: [compute, autotune, h2d]
program: [begin_execution, end_execution]
)");
  CHECK(s.name == "demo");
  CHECK(s.description == "one line");
  CHECK(s.default_policy == "host-sync");
  CHECK(s.default_guard == "wait-compute");
  CHECK(s.seed == 7);
  CHECK(s.semaphore == 4);
  CHECK(s.device.memory_limit == 3ull << 30);
  CHECK(s.device.allow_growth);
  CHECK(s.device.garbage_collection);
  CHECK(s.device.fragmentation_fraction == 0.5);
  CHECK(s.device.private_pool_limit == 64ull << 20);
  CHECK(s.platform.callback_latency_ns == 20000);
  CHECK(s.platform.launch_overhead_ns == 2000);
  CHECK(s.platform.spin_ns_per_cycle == 0.25);
  REQUIRE(s.program.streams.size() == 3);
  CHECK(s.program.streams[2].name == "h2d");
  CHECK(s.params.get("lat", 0) == 20000);
  REQUIRE(s.program.ops.size() == 2);
  CHECK(s.program.ops[0].kind == HostOpKind::BeginExecution);
  CHECK(s.program.ops[1].kind == HostOpKind::EndExecution);
}

TEST_CASE("compute is added first when streams omit it - default streams are compute + autotune") {
  CHECK(load_text("streams: [h2d]\nprogram: []\n").program.streams[0].name == "compute");
  CHECK(load_text("streams: [h2d]\nprogram: []\n").program.streams[1].name == "h2d");
  CHECK(load_text("program: []\n").program.streams[1].name == "autotune");
}

TEST_CASE("alloc, kernel with read/write sets and slices, memset, copy, release") {
  Scenario s = load_text(R"(
program:
  - alloc: {buffer: A, size: 1MiB}
  - alloc: {buffer: B, stream: autotune, size: 4KiB}
  - kernel: {name: k, duration: 3us, reads: [A], writes: [{buffer: B, offset: 1KiB, bytes: 2KiB}]}
  - memset: {stream: autotune, buffer: B, duration: 1us}
  - copy: {src: A, dst: B, duration: 2us}
  - release: [A, B]
)");
  const auto& ops = s.program.ops;
  REQUIRE(ops.size() == 7);
  CHECK(ops[0].kind == HostOpKind::Alloc);
  CHECK(ops[0].bytes == 1u << 20);
  CHECK(ops[0].stream == 0);
  CHECK(ops[1].stream == 1);
  CHECK(ops[2].kind == HostOpKind::Kernel);
  CHECK(ops[2].duration.kind == Duration::Kind::Fixed);
  CHECK(ops[2].duration.a == 3000);
  REQUIRE(ops[2].reads.size() == 1);
  CHECK(ops[2].reads[0].buffer == 0);
  CHECK(ops[2].reads[0].bytes == 0);
  REQUIRE(ops[2].writes.size() == 1);
  CHECK(ops[2].writes[0].buffer == 1);
  CHECK(ops[2].writes[0].offset == 1024);
  CHECK(ops[2].writes[0].bytes == 2048);
  CHECK(ops[3].kind == HostOpKind::Memset);
  CHECK(ops[3].stream == 1);
  CHECK(ops[3].writes[0].buffer == 1);
  CHECK(ops[4].kind == HostOpKind::Copy);
  CHECK(ops[4].reads[0].buffer == 0);
  CHECK(ops[4].writes[0].buffer == 1);
  CHECK(ops[5].kind == HostOpKind::Release);
  CHECK(ops[6].kind == HostOpKind::Release);
  CHECK(ops[6].buffer == 1);
  CHECK(ops[2].source_line == 5);
}

TEST_CASE("duration distributions") {
  Scenario s = load_text(R"(
program:
  - host_delay: {fixed: 1ms}
  - host_delay: {uniform: [1us, 3us]}
  - host_delay: {normal: {mean: 10us, stddev: 1us}}
  - host_delay: {lognormal: [10us, 2us]}
  - host_delay: {exponential: {mean: 5us}}
  - host_delay: 1.5s
)");
  const auto& ops = s.program.ops;
  REQUIRE(ops.size() == 6);
  CHECK(ops[0].duration.kind == Duration::Kind::Fixed);
  CHECK(ops[0].duration.a == 1e6);
  CHECK(ops[1].duration.kind == Duration::Kind::Uniform);
  CHECK(ops[1].duration.a == 1000);
  CHECK(ops[1].duration.b == 3000);
  CHECK(ops[2].duration.kind == Duration::Kind::Normal);
  CHECK(ops[2].duration.b == 1000);
  CHECK(ops[3].duration.kind == Duration::Kind::LogNormal);
  CHECK(ops[3].duration.a == 10000);
  CHECK(ops[4].duration.kind == Duration::Kind::Exponential);
  CHECK(ops[4].duration.a == 5000);
  CHECK(ops[5].duration.a == 1.5e9);
}

TEST_CASE("events and synchronisation ops") {
  Scenario s = load_text(R"(
program:
  - record: {event: E, stream: compute}
  - wait: {event: E, stream: autotune}
  - event_query: E
  - event_sync: E
  - record: {event: E}
  - wait: {event: E, stream: autotune}
  - stream_sync: autotune
  - device_sync
)");
  const auto& ops = s.program.ops;
  REQUIRE(ops.size() == 8);
  CHECK(ops[0].kind == HostOpKind::RecordEvent);
  CHECK(ops[0].event == 0);
  CHECK(ops[1].kind == HostOpKind::StreamWait);
  CHECK(ops[1].stream == 1);
  CHECK(ops[1].event == 0);
  CHECK(ops[2].kind == HostOpKind::EventQuery);
  CHECK(ops[3].kind == HostOpKind::EventSync);
  CHECK(ops[4].event == 1);  // a new record is a new program event
  CHECK(ops[5].event == 1);  // waits refer to the latest record
  CHECK(ops[6].kind == HostOpKind::StreamSync);
  CHECK(ops[6].stream == 1);
  CHECK(ops[7].kind == HostOpKind::DeviceSync);
  CHECK(s.program.event_names == std::vector<std::string>{"E", "E#1"});
}

TEST_CASE("autotune block expands to alloc, memset, candidates, sync, release on the autotune stream") {
  Scenario s = load_text(R"(
program:
  - alloc: {buffer: W, size: 1MiB}
  - autotune: {scratch: 8MiB, candidates: 2, candidate_duration: 40us, memset_duration: 3us, reads: [W]}
  - release: W
)");
  const auto& ops = s.program.ops;
  REQUIRE(ops.size() == 8);
  CHECK(ops[1].kind == HostOpKind::Alloc);
  CHECK(ops[1].stream == 1);
  CHECK(ops[1].bytes == 8u << 20);
  CHECK(ops[2].kind == HostOpKind::Memset);
  CHECK(ops[2].duration.a == 3000);
  CHECK(ops[3].kind == HostOpKind::Kernel);
  CHECK(ops[3].reads.size() == 2);
  CHECK(ops[4].kind == HostOpKind::Kernel);
  CHECK(ops[4].duration.a == 40000);
  CHECK(ops[5].kind == HostOpKind::StreamSync);
  CHECK(ops[6].kind == HostOpKind::Release);
  CHECK(ops[6].buffer == ops[1].buffer);
  CHECK(s.program.buffer_names[std::size_t(ops[1].buffer)] == "autotune_scratch");
}

TEST_CASE("repeat expands loops with fresh BufferIds per iteration and loop variables") {
  Scenario s = load_text(R"(
params: {n: 3}
program:
  - repeat: $n
    body:
      - alloc: {buffer: X, size: 1KiB}
      - repeat: 2
        var: i
        body:
          - alloc: {buffer: "t${i}", size: "(${i} + 1) * 256"}
      - release: [t0, t1, X]
)");
  const auto& p = s.program;
  CHECK(count_ops(p, HostOpKind::Alloc) == 9);
  CHECK(p.buffer_names.size() == 9);
  CHECK(p.buffer_names[0] == "X");
  CHECK(p.buffer_names[3] == "X#1");
  CHECK(p.buffer_names[2] == "t1");
  CHECK(p.ops[2].bytes == 512);
  CHECK(p.ops.back().buffer == 6);  // last X is the third allocation of X
}

TEST_CASE("shutdown in both orders") {
  auto wrong = [](const char* y) { return load_text(y).program.ops.back().wrong_order; };
  CHECK_FALSE(wrong("program: [shutdown]\n"));
  CHECK_FALSE(wrong("program: [{shutdown: {order: xla}}]\n"));
  CHECK(wrong("program: [{shutdown: {order: wrong}}]\n"));
  CHECK(wrong("params: {w: 1}\nprogram: [{shutdown: {order: $w}}]\n"));
}

TEST_CASE("sizes drawn at load time: uniform_int with alignment, choice") {
  Scenario s = load_text(R"(
program:
  - repeat: 50
    body:
      - alloc: {buffer: a, size: {uniform_int: [1000, 5000], align: 512}}
      - alloc: {buffer: b, size: {choice: [1KiB, 2KiB]}}
      - release: [a, b]
)");
  for (const auto& op : s.program.ops) {
    if (op.kind != HostOpKind::Alloc) continue;
    if (s.program.buffer_names[std::size_t(op.buffer)][0] == 'a') {
      CHECK(op.bytes % 512 == 0);
      CHECK(op.bytes >= 1024);
      CHECK(op.bytes <= 5120);
    } else {
      CHECK((op.bytes == 1024 || op.bytes == 2048));
    }
  }
}
