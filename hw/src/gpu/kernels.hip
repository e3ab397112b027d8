// The op / spin / empty kernels (see kernels.h).
#include "kernels.h"

#include "allocsim/hw/pattern.h"

namespace allocsim::hw {
namespace {

__device__ void spin_for(long long cycles) {
  if (cycles <= 0) return;
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

/// The device's global time: %globaltimer (ns) on NVIDIA, the constant-rate wall clock on AMD.
__device__ inline unsigned long long device_time() {
#if defined(__CUDA_ARCH__)
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#elif defined(__HIP_DEVICE_COMPILE__)
  return static_cast<unsigned long long>(wall_clock64());
#else
  return 0;
#endif
}

/// The writer slot of a foreign word `got` (OpDescriptor::source_counters).
__device__ inline unsigned writer_slot(const OpDescriptor& op, std::uint32_t got) {
  if (got == 0) return op.allocs;
  const std::uint32_t tag = tag_of_word(got);
  if (tag == 0) return op.allocs + 1;  // no allocation's tag: not our pattern at all
  const std::uint32_t index = (tag - 1u + kLowMask - op.tag_origin) % kLowMask;
  return index < op.allocs ? index : op.allocs + 1;
}

__global__ void op_kernel(OpDescriptor op) {
  unsigned long long* const stamps = op.timestamps ? op.timestamps + kTimelineStampsPerOp * op.op_index : nullptr;
  if (stamps && threadIdx.x == 0) atomicMax(&stamps[0], ~device_time());
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint64_t tid = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  // Counts are summed per block in shared memory first, then added to the device counters once
  // per block: one global atomic per thread on one address serialised a corrupted 8 MiB read by
  // about 25 us on the H200, stretching exactly the ops that saw foreign data (the "contended"
  // passes of the first phase-stamp run, results/hw/h200-phases).
  constexpr int kWriterSlots = 8;  // distinct writers per block and segment kept in shared memory
  __shared__ unsigned block_foreign, block_stale;
  __shared__ unsigned slot_writer[kWriterSlots];  // writer + 1; 0: free
  __shared__ unsigned slot_words[kWriterSlots];
  for (int r = 0; r < op.num_reads; ++r) {
    const KernelSegment s = op.reads[r];
    const std::uint32_t key = pattern_key(s.alloc, s.version);
    if (threadIdx.x == 0) block_foreign = block_stale = 0;
    if (threadIdx.x < kWriterSlots) slot_writer[threadIdx.x] = slot_words[threadIdx.x] = 0;
    __syncthreads();
    unsigned foreign = 0, stale = 0;
    unsigned long long* sources =
        op.source_counters ? op.source_counters + std::uint64_t(s.alloc) * (op.allocs + 2) : nullptr;
    // Foreign words come in long runs of one writer: count a run, add it when the writer changes.
    auto flush = [&](unsigned writer, unsigned words) {
      for (int k = 0; k < kWriterSlots; ++k) {
        const unsigned held = atomicCAS(&slot_writer[k], 0u, writer + 1);
        if (held == 0 || held == writer + 1) {
          atomicAdd(&slot_words[k], words);
          return;
        }
      }
      atomicAdd(&sources[writer], (unsigned long long)words);  // more writers than slots
    };
    unsigned run_writer = 0, run_words = 0;
    for (std::uint64_t i = tid; i < s.count; i += stride) {
      const std::uint64_t w = s.first_word + i;
      const std::uint32_t want = s.version == kZeroVersion ? 0u : tagged_word(s.tag, key, w);
      const std::uint32_t got = s.base[w];
      const WordCheck c = check_word(got, want, s.tag);
      foreign += c == WordCheck::Foreign;
      stale += c == WordCheck::StaleOwn;
      if (sources && c == WordCheck::Foreign) {
        const unsigned writer = writer_slot(op, got);
        if (run_words && writer != run_writer) {
          flush(run_writer, run_words);
          run_words = 0;
        }
        run_writer = writer;
        ++run_words;
      }
    }
    if (run_words) flush(run_writer, run_words);
    if (foreign) atomicAdd(&block_foreign, foreign);
    if (stale) atomicAdd(&block_stale, stale);
    __syncthreads();
    if (threadIdx.x == 0 && block_foreign) atomicAdd(&op.mismatch_counters[s.alloc], (unsigned long long)block_foreign);
    if (threadIdx.x == 0 && block_stale) atomicAdd(&op.stale_counters[s.alloc], (unsigned long long)block_stale);
    if (sources && threadIdx.x < kWriterSlots && slot_writer[threadIdx.x])
      atomicAdd(&sources[slot_writer[threadIdx.x] - 1], (unsigned long long)slot_words[threadIdx.x]);
    __syncthreads();  // the shared counters are reset for the next segment
  }
  if (stamps) {  // uniform over the block: every thread reaches the barrier
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(&stamps[2], device_time());
  }
  if (op.spin_cycles > 0) {
    if (threadIdx.x == 0) spin_for(op.spin_cycles);
    __syncthreads();
  }
  if (stamps && threadIdx.x == 0) atomicMax(&stamps[3], ~device_time());
  for (int k = 0; k < op.num_writes; ++k) {
    const KernelSegment s = op.writes[k];
    const std::uint32_t key = pattern_key(s.alloc, s.version);
    for (std::uint64_t i = tid; i < s.count; i += stride) {
      const std::uint64_t w = s.first_word + i;
      s.base[w] = s.version == kZeroVersion ? 0u : tagged_word(s.tag, key, w);
    }
  }
  if (stamps) {
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(&stamps[1], device_time());
  }
}

__global__ void spin_kernel(long long cycles) { spin_for(cycles); }
__global__ void empty_kernel() {}

/// Waits a little between polls of the gate's flag, so one spinning thread does not hammer the
/// flag's cache line while the signalling stream's kernels run.
__device__ inline void poll_pause() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  __nanosleep(200);
#elif defined(__HIP_DEVICE_COMPILE__)
  __builtin_amdgcn_s_sleep(2);
#endif
}

__global__ void gate_kernel(unsigned* flag, unsigned* timed_out, unsigned long long timeout_ticks) {
  const unsigned long long start = device_time();
  // volatile: each poll reads memory, not a register the compiler kept from the first read.
  while (*static_cast<volatile unsigned*>(flag) == 0) {
    if (device_time() - start > timeout_ticks) {
      atomicExch(timed_out, 1u);
      return;
    }
    poll_pause();
  }
  // The held op is the next kernel on this stream: it starts after this one ends, so it sees
  // what the until op wrote (the signal fenced those writes before it set the flag).
  __threadfence();
}

__global__ void signal_kernel(unsigned* flag) {
  __threadfence();  // the until op's writes are visible before the flag is
  atomicExch(flag, 1u);
}

/// A store the host sees: the flag is mapped host memory, which a host thread polls.
__global__ void host_flag_kernel(unsigned* flag, unsigned value) {
  __threadfence_system();
  *static_cast<volatile unsigned*>(flag) = value;
  __threadfence_system();
}

}  // namespace

hipError_t launch_op(const OpDescriptor& op, hipStream_t stream) {
  std::uint64_t words = 0;
  for (int i = 0; i < op.num_reads; ++i) words = words > op.reads[i].count ? words : op.reads[i].count;
  for (int i = 0; i < op.num_writes; ++i) words = words > op.writes[i].count ? words : op.writes[i].count;
  // Enough blocks to cover the data, at most one wave (one block per multiprocessor, read from
  // the device by HipDevice) so every block spins at the same time.
  const unsigned wave = op.max_blocks < 1 ? 1 : op.max_blocks;
  unsigned blocks = unsigned((words + 255) / 256);
  blocks = blocks < 1 ? 1 : (blocks > wave ? wave : blocks);
  hipLaunchKernelGGL(op_kernel, dim3(blocks), dim3(256), 0, stream, op);
  return hipGetLastError();
}

hipError_t launch_spin(long long cycles, hipStream_t stream) {
  hipLaunchKernelGGL(spin_kernel, dim3(1), dim3(1), 0, stream, cycles);
  return hipGetLastError();
}

hipError_t launch_empty(hipStream_t stream) {
  hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(1), 0, stream);
  return hipGetLastError();
}

hipError_t launch_gate(unsigned* flag, unsigned* timed_out, unsigned long long timeout_ticks, hipStream_t stream) {
  hipLaunchKernelGGL(gate_kernel, dim3(1), dim3(1), 0, stream, flag, timed_out, timeout_ticks);
  return hipGetLastError();
}

hipError_t launch_signal(unsigned* flag, hipStream_t stream) {
  hipLaunchKernelGGL(signal_kernel, dim3(1), dim3(1), 0, stream, flag);
  return hipGetLastError();
}

hipError_t launch_host_flag(unsigned* flag, unsigned value, hipStream_t stream) {
  hipLaunchKernelGGL(host_flag_kernel, dim3(1), dim3(1), 0, stream, flag, value);
  return hipGetLastError();
}

}  // namespace allocsim::hw
