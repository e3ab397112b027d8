// PyTorch memory-snapshot replay: turns a `torch.cuda.memory._dump_snapshot` trace (converted to
// JSON by tools/torch_snapshot_to_json.py; plain or gzip) into a Scenario.
//
// Model (documented in docs/scenarios.md, "PyTorch trace replay"):
//  - one device's `device_traces[torch_device]` is replayed in record order;
//  - streams: the default stream (id 0, else the first stream seen) is `compute`, every other
//    recorded stream id becomes a program stream `stream<k>` in order of first appearance;
//  - `alloc` -> Alloc on the recorded stream; `free_requested` -> Release; the host waits between
//    entries with HostDelay to follow `time_us` (scaled by `torch_time_scale`);
//  - the trace has no kernels. Its only evidence of device work is a `free_completed` that PyTorch
//    did not record inside the free() itself (record_stream's event polled later): the device
//    still had the block until then. Such a free gets a read-only Kernel on the buffer, enqueued
//    just before the Release and lasting until the completion, on a lane stream `held<k>` (the
//    stream record_stream named is not recorded); a free never completed in the trace holds its
//    block to the trace's end. Nothing else touches the device, so race counts are 0 by
//    construction and say nothing about safety (Scenario::race_caveat says so in every run);
//  - a free of an address allocated before the recording began makes a buffer in
//    Program::preexisting (allocated at program start); allocations never freed stay live;
//  - `segment_*`, `snapshot`, `oom` entries do not drive the host program;
//    metadata.max_memory_allocated / max_memory_reserved become Scenario::reference_max_*.
#pragma once
#include <string>

#include "allocsim/core/params.h"
#include "allocsim/core/scenario.h"
#include "allocsim/scenarios/loader.h"

namespace allocsim {

/// Reads a snapshot JSON file (gzip detected by its magic bytes) and builds the replay scenario.
Scenario load_torch_trace(const std::string& path, const Params& overrides = {},
                          const LoadLimits& limits = {});

/// The same from JSON text already in memory (`file_label` names it in messages).
Scenario torch_trace_from_json(const std::string& json_text, const std::string& file_label,
                               const Params& overrides = {}, const LoadLimits& limits = {});

/// The `--set` keys a trace replay accepts besides the well-known ones, with their defaults.
Params torch_trace_default_params();

}  // namespace allocsim
