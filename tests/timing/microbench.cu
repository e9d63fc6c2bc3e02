// Micro-benchmarks for the time model's parameters (issue 31, h100.def):
// each measures one figure on the H100, never a kernel the model is judged
// on. Prints "param <name> <value> <unit>" lines (scripts/gpu-timing keeps
// them in microbench.measured):
//  - barrier_cycles: one bar.sync of a block (256 and 1024 threads, one
//    block per SM), clock64 over a loop of barriers minus the same loop
//    without them;
//  - tree_step_cycles: one step of a shared tree reduction (dependent
//    shared load, add, shared store, barrier): checks the block-chain
//    term's sum (latency_shared + issue + barrier_cycles), not a parameter;
//  - launch_us: an empty kernel between two CUDA events (how the suite is
//    timed), 1 block and 1056 blocks;
//  - dram_write_gbs / dram_read_gbs: 256 MiB stored / loaded (16-byte
//    accesses), event-timed;
//  - dram_granule_bytes: reading one 4-byte word per 128-byte line of
//    256 MiB against reading every byte: the DRAM bytes fetched per
//    touched 32-byte sector (32 if DRAM fetched sectors alone);
//  - dsmem_atomic_latency / shared_atomic_latency: one lane's dependent
//    atomicAdd chain on the other block's shared memory of a 2-block
//    cluster, and on its own; dsmem_atomic_cycles_per_warp: 256 threads
//    each adding to distinct remote words, per warp-instruction per SM.
//  - partial_store_bytes: 256 MiB written one 4-byte word per 32-byte
//    sector (never completed) against the full write: DRAM bytes per
//    partially written sector (32 if L2 wrote the bytes back alone, more
//    if it fills the sector or granule from DRAM first);
//  - column_store_bytes: the same 256 MiB written whole, but each warp
//    store puts 4 bytes into 32 sectors of 32 rows, the 8 warps of a
//    block completing the sectors (a column-major store pattern): DRAM
//    bytes per 32-byte sector against the full write;
//  - dep_imad_cycles / dep_ffma_cycles / dep_iadd_cycles: one warp's chain
//    of dependent integer multiply-adds, FP32 FMAs and integer adds
//    (clock64 over 1024 of them): the dependent-issue latency.
//  - lds_rate_row / lds_rate_bcast / lds_rate_v4 / lds_rate_v4_bcast:
//    conflict-free shared loads (volatile: one LDS each, 32 distinct words,
//    one word for the warp, a float4 per lane, one float4 for the warp) of
//    32 warps per SM, 8 independent per loop step: warp-instructions per
//    clock per SM (time31c; v4_bcast time31d);
//  - ldg_rate_row / ldg_rate_bcast: the same with global loads that hit
//    in L1 (a 32 KiB array read again and again through ld.global.nc):
//    warp-instructions per clock per SM;
//  - lds{32,64,128}_rate_{row,bcast}, sts{32,64,128}_rate_{row,same},
//    ldg128_rate_{row,bcast} (time31e; alone: `microbench widths`): the
//    same per access width, loads and stores, each lane its own slot or
//    all lanes one: the L1/shared data path's cycles per request against
//    its bank wavefronts and the bytes it moves to or from registers;
//  - block_cycles_256: an empty kernel of 65536 blocks of 256 threads
//    against one of 132 blocks: an SM's cycles per block it starts and
//    retires (8 resident);
//  - block_spin_C: 65536 blocks of 256 threads (8 resident per SM) whose
//    warps each spin C cycles on clock64: an SM's cycles per block as the
//    block's own time grows (is starting a block a throughput the SM's
//    resident blocks overlap, or time each block slot spends?);
//  - barrier_cycles_256x8_only: a loop of bar.sync alone, 8 blocks of 256
//    threads per SM, less the empty loop: an SM's cycles per block barrier
//    when 8 blocks share it.
//  - phase_{spin,l2}_S<s>_T<t>_R<r> (time31f; alone: `microbench phases`):
//    R resident blocks of T threads per SM, each looping over two
//    barrier-separated phases: A, which leaves the L1/shared data path idle
//    (every warp spinning S cycles on clock64, or loading one word from L2
//    and storing it to shared memory), and B, 32 conflict-free LDS.32 per
//    warp (T/32 x 32 data-path cycles a block). Cycles per iteration (the
//    median block's clock64): do the resident blocks overlap one block's A
//    with another's B (max of R x B and one block's A + B), or do the
//    blocks, started together, stay in step so the SM pays A on top of
//    R x B? phase_rounds_*: the same with 4 rounds of blocks (event-timed),
//    whether new blocks keep the step.
//  - drain_{lds,sts,ffma,none}_T<t>_R<r>_k<k> (time31g; alone: `microbench
//    drain`): R resident blocks of T threads per SM loop over one phase (k x 8
//    conflict-free LDS.32 each added to a register, k x 8 STS.32, k x 32
//    independent FFMA, nothing, or k x 8 ld.global.cg from L2) followed by bar.sync, and the same
//    loop without the barrier: the SM's cycles per iteration of each and their difference, what a
//    barrier after such a phase costs the SM beyond the phase's own throughput (the last loads'
//    drain, the release, the warps' restart), by block size and by warps per SM.
//  - drain_rounds_{spin,l2}_T<t>_R<r>_n<n> (time31g): phase_steps' work split
//    into n rounds of resident blocks (256 / n iterations each), event-timed:
//    how much of the step the rounds lose as the round grows shorter.
//  - kept_{spin,l2}_T<t>_R<r>_n<n> (time31h; alone: `microbench kept`): the
//    same rounds at R = 1, 2, 4, 8 blocks per SM, 64 and 32 warps per SM:
//    the step the later rounds keep as a function of the resident blocks.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

__global__ void barrier_loop(long long* cycles, int n, int with_barrier) {
  __shared__ volatile int sink[1024];
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    sink[threadIdx.x] = i;
    if (with_barrier) __syncthreads();
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

__global__ void tree_steps(long long* cycles, float* out, int n) {
  __shared__ float s[1024];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  float v = 0;
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    // One reduction step: read a partner's value, add, write back, sync.
    unsigned partner = (threadIdx.x + 1 + (i & 7)) % blockDim.x;
    v = s[partner] + v;
    s[threadIdx.x] = v;
    __syncthreads();
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

namespace cg = cooperative_groups;

// remote: 1 = the other block of the cluster, 0 = this block's own shared.
__global__ void __cluster_dims__(2, 1, 1) atomic_chain(long long* cycles, int n, int remote) {
  __shared__ int words[256];
  cg::cluster_group cl = cg::this_cluster();
  words[threadIdx.x] = 0;
  cl.sync();
  int* target = remote ? cl.map_shared_rank(words, cl.block_rank() ^ 1) : words;
  long long t0 = clock64();
  if (threadIdx.x == 0) {
    int v = 0;
    for (int i = 0; i < n; ++i) v = atomicAdd(target + (v >> 30), 1);  // address depends on v
    words[1] = v;
  }
  long long t1 = clock64();
  cl.sync();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

__global__ void __cluster_dims__(2, 1, 1) atomic_stream(long long* cycles, int n) {
  __shared__ int words[256];
  cg::cluster_group cl = cg::this_cluster();
  words[threadIdx.x] = 0;
  cl.sync();
  int* target = cl.map_shared_rank(words, cl.block_rank() ^ 1);
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) atomicAdd(target + threadIdx.x, 1);
  __syncthreads();
  long long t1 = clock64();
  cl.sync();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

__global__ void empty_kernel() {}

__global__ void store16(float4* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_float4(1, 2, 3, 4);
}

__global__ void load16(const float4* p, float* out, size_t n) {
  float acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    float4 v = p[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == -1.0f) out[0] = acc;  // never true: keeps the loads
}

__global__ void load_one_per_line(const float* p, float* out, size_t lines) {
  float acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < lines;
       i += size_t(gridDim.x) * blockDim.x)
    acc += p[i * 32];
  if (acc == -1.0f) out[0] = acc;
}

// One word per 32-byte sector of p (8 floats apart).
__global__ void store_one_per_sector(float* p, size_t sectors) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < sectors;
       i += size_t(gridDim.x) * blockDim.x)
    p[i * 8] = 1.0f;
}

// p as rows x cols floats (cols % 8 == 0), blocks of 32 x 8 threads: lane
// x of warp y writes row (32 bx + x), column (8 by + y); a warp's store
// touches 32 rows, the block's 8 warps complete one sector in each.
__global__ void store_columns(float* p, int cols) {
  size_t row = blockIdx.x * 32 + threadIdx.x, col = blockIdx.y * 8 + threadIdx.y;
  p[row * cols + col] = 1.0f;
}

// A chain of dependent operations of one warp (kind 0: IMAD, 1: FFMA,
// 2: IADD through xor so that ptxas cannot fold the adds).
__global__ void dep_chain(long long* cycles, unsigned* out, int kind, unsigned a, unsigned b) {
  unsigned x = threadIdx.x + a;
  float f = float(threadIdx.x) + float(a);
  long long t0 = clock64();
  if (kind == 0) {
#pragma unroll
    for (int i = 0; i < 1024; ++i)
      asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
  } else if (kind == 1) {
#pragma unroll
    for (int i = 0; i < 1024; ++i)
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f) : "f"(1.0001f), "f"(0.5f));
  } else {
#pragma unroll
    for (int i = 0; i < 1024; ++i) asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(b + i));
  }
  long long t1 = clock64();
  out[threadIdx.x] = x + __float_as_uint(f);
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// Shared-load throughput (time31c). mode 0: lane-consecutive words (one
// wavefront), 1: one word for the whole warp (broadcast, one wavefront),
// 2: a float4 per lane (LDS.128, four wavefronts), 3: one float4 for the
// whole warp (LDS.128 broadcast: one wavefront in the bank model, but 512
// bytes to the registers; time31d). volatile keeps each load a separate LDS
// that ptxas cannot widen or hoist.
template <int MODE>
__global__ void lds_rate(long long* cycles, float* out, int n) {
  __shared__ float4 s4[1024];
  volatile float* s = reinterpret_cast<volatile float*>(s4);
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = float(i);
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  const unsigned shared_base = unsigned(__cvta_generic_to_shared(s4));
  float acc[8] = {};
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    // Offsets j * 32 words fold into the loads' immediates.
    const unsigned row = (i & 7) * 512 + (MODE == 1 ? 5 : lane);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (MODE >= 2) {
        float x, y, z, w;
        const unsigned slot = MODE == 3 ? 5 : lane;
        asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                     : "r"(shared_base + 16 * ((i & 1) * 256 + j * 32 + slot)));
        acc[j] += x + w + y * z;
      } else {
        acc[j] += s[row + j * 32];
      }
    }
  }
  __syncthreads();
  long long t1 = clock64();
  float t = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) t += acc[j];
  if (t == -1.0f) out[0] = t;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// Global loads that hit in L1 (time31c): every block reads the same 32 KiB
// (warmed first), 8 independent loads per loop step. MODE 0: 32 consecutive
// words (4 sectors), 1: one word for the warp (1 sector).
template <int MODE>
__global__ void ldg_rate(const float* __restrict__ p, long long* cycles, float* out, int n) {
  const unsigned lane = threadIdx.x & 31;
  float acc[8] = {};
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) acc[0] += __ldg(p + i);
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    const float* row = p + (i & 31) * 256 + (MODE == 0 ? lane : 7);
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[j] += __ldg(row + j * 32);
  }
  __syncthreads();
  long long t1 = clock64();
  float t = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) t += acc[j];
  if (t == -1.0f) out[0] = t;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// The L1/shared data path by access width (time31e): 32 warps per SM, 8
// independent accesses per loop step, each a separate volatile LDS/STS/LDG
// of W floats (1, 2 or 4: .32, .64, .128) per lane. BCAST 0: each lane its
// own W-float slot (W wavefronts' worth of distinct bytes); 1: every lane
// the same slot (one wavefront in the bank model; a store's lanes then
// write one address). Loads return W x 4 x 32 bytes to the registers
// whatever BCAST is, so the rate of the broadcast form measures how many
// bytes per clock the data path returns to registers apart from banks.
template <int W, int BCAST>
__global__ void lds_width_rate(long long* cycles, float* out, int n) {
  __shared__ float4 s4[1024];
  float* s = reinterpret_cast<float*>(s4);
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = float(i);
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  const unsigned base = unsigned(__cvta_generic_to_shared(s4));
  const unsigned slot = BCAST ? 5 : lane;
  float acc[8] = {};
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const unsigned a = base + 4 * W * ((i & 1) * 256 + j * 32 + slot);
      float x = 0, y = 0, z = 0, w = 0;
      if (W == 1)
        asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(x) : "r"(a));
      else if (W == 2)
        asm volatile("ld.volatile.shared.v2.f32 {%0, %1}, [%2];" : "=f"(x), "=f"(y) : "r"(a));
      else
        asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                     : "r"(a));
      acc[j] += x + w + y * z;
    }
  }
  __syncthreads();
  long long t1 = clock64();
  float t = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) t += acc[j];
  if (t == -1.0f) out[0] = t;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int W, int BCAST>
__global__ void sts_width_rate(long long* cycles, float* out, int n) {
  __shared__ float4 s4[1024];
  const unsigned lane = threadIdx.x & 31;
  const unsigned base = unsigned(__cvta_generic_to_shared(s4));
  const unsigned slot = BCAST ? 5 : lane;
  float v = float(threadIdx.x);
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const unsigned a = base + 4 * W * ((i & 1) * 256 + j * 32 + slot);
      if (W == 1)
        asm volatile("st.volatile.shared.f32 [%0], %1;" ::"r"(a), "f"(v));
      else if (W == 2)
        asm volatile("st.volatile.shared.v2.f32 [%0], {%1, %2};" ::"r"(a), "f"(v), "f"(v));
      else
        asm volatile("st.volatile.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(a), "f"(v), "f"(v),
                     "f"(v), "f"(v));
    }
    v += 1.0f;
  }
  __syncthreads();
  long long t1 = clock64();
  if (v == -1.0f) out[0] = v;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// L1-hit global loads of a float4 (time31e): BCAST 0 each lane its own 16
// bytes (16 sectors), 1 one float4 for the warp (1 sector, 512 bytes to the
// registers).
template <int BCAST>
__global__ void ldg_v4_rate(const float4* __restrict__ p, long long* cycles, float* out, int n) {
  const unsigned lane = threadIdx.x & 31;
  float acc[8] = {};
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) acc[0] += __ldg(p + i).x;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    const float4* row = p + (i & 7) * 256 + (BCAST ? 7 : lane);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float4 q = __ldg(row + j * 32);
      acc[j] += q.x + q.w + q.y * q.z;
    }
  }
  __syncthreads();
  long long t1 = clock64();
  float t = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) t += acc[j];
  if (t == -1.0f) out[0] = t;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

__global__ void block_spin(long long spin) {
  const long long t0 = clock64();
  while (clock64() - t0 < spin) {
  }
}

// bar.sync alone in a loop (time31c): with several blocks per SM, what one
// block barrier costs the SM.
__global__ void barrier_only(long long* cycles, int n, int with_barrier) {
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    if (with_barrier) __syncthreads();
    asm volatile("" ::: "memory");
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// Two barrier-separated phases per iteration (time31f): A leaves the
// data path idle (MODE 0: spin `spin` cycles; MODE 1: one ld.global.cg
// word from an L2-resident 4 MiB buffer stored to shared memory, the warp
// waiting its round trip), B is `k` x 8 conflict-free LDS.32 per warp.
// MODE 2: B alone, no barriers (do block turnovers add to a barrier-free
// data-path-bound grid's time?).
template <int MODE>
__global__ void __launch_bounds__(1024, 2)
    phase_steps(long long* cycles, const float* __restrict__ g, float* out, int iters, int spin,
                int k) {
  __shared__ float s[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = float(i);
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  const unsigned base = unsigned(__cvta_generic_to_shared(s));
  float acc[8] = {};
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    if (MODE == 2) {
    } else if (MODE == 0) {
      const long long t = clock64();
      while (clock64() - t < spin) {
      }
    } else {
      const size_t i =
          (size_t(it) * gridDim.x * blockDim.x + blockIdx.x * blockDim.x + threadIdx.x) &
          ((1u << 20) - 1);
      float v;
      asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(g + i));
      s[2048 + (threadIdx.x & 1023)] = v;
    }
    if (MODE != 2) __syncthreads();
    for (int step = 0; step < k; ++step) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        float x;
        asm volatile("ld.volatile.shared.f32 %0, [%1];"
                     : "=f"(x)
                     : "r"(base + 4 * ((step & 3) * 256 + j * 32 + lane)));
        acc[j] += x;
      }
    }
    if (MODE != 2) __syncthreads();
  }
  long long t1 = clock64();
  float t = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) t += acc[j];
  if (t == -1.0f) out[0] = t;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// One phase then a block barrier per iteration (time31g, `microbench
// drain`). KIND 0: k x 8 conflict-free LDS.32, each added to a register
// (the warp waits for them before the barrier); 1: k x 8 conflict-free
// STS.32; 2: k x 32 FFMA on 8 independent accumulators; 3: nothing; 4: k x 8
// ld.global.cg words from an L2-resident 4 MiB buffer, each added to a
// register.
// `bar` 0 leaves the barrier out (the phase's own throughput).
template <int KIND>
__global__ void __launch_bounds__(1024) drain_steps(long long* cycles, const float* __restrict__ g,
                                                    float* out, int iters, int k, int bar) {
  __shared__ float s[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = float(i);
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  const unsigned base = unsigned(__cvta_generic_to_shared(s));
  float acc[8] = {};
  const float m = 1.0f + 1e-7f * float(threadIdx.x);
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    for (int step = 0; step < k; ++step) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const unsigned a = base + 4 * ((step & 3) * 256 + j * 32 + lane);
        if (KIND == 0) {
          float x;
          asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(x) : "r"(a));
          acc[j] += x;
        } else if (KIND == 1) {
          asm volatile("st.volatile.shared.f32 [%0], %1;" ::"r"(a), "f"(acc[j]));
        } else if (KIND == 2) {
#pragma unroll
          for (int q = 0; q < 4; ++q)
            asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(acc[j]) : "f"(m));
        } else if (KIND == 4) {
          const size_t i = (size_t(it) * 8 * k + step * 8 + j) * 32 + lane +
                           size_t(blockIdx.x * blockDim.x + threadIdx.x - lane) * 8;
          float x;
          asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(x) : "l"(g + (i & ((1u << 20) - 1))));
          acc[j] += x;
        }
      }
    }
    if (bar) __syncthreads();
    asm volatile("" ::: "memory");
  }
  long long t1 = clock64();
  float t = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) t += acc[j];
  if (t == -1.0f) out[0] = t;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <class F>
float median_us(F launch, int repeat = 21) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  launch();
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < repeat; ++r) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return 1000.0f * ms[ms.size() / 2];
}

double median_cycles(long long* d, int blocks) {
  std::vector<long long> h(blocks);
  CHECK(cudaMemcpy(h.data(), d, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
  std::sort(h.begin(), h.end());
  return double(h[blocks / 2]);
}

// The data path's rows by width (time31e), alone with `microbench widths`.
void width_rates(long long* cyc, float* out) {
  const int nl = 2048;
  auto rate = [&](const char* name) {
    CHECK(cudaDeviceSynchronize());
    std::printf("param %s %.3f warp-instructions/clk/SM (%.0f cycles)\n", name,
                32.0 * 8 * nl / median_cycles(cyc, 132), median_cycles(cyc, 132));
  };
#define SMEMLAB_WIDTH_ROW(K, W, B, NAME)                            \
  for (int r = 0; r < 2; ++r) K<W, B><<<132, 1024>>>(cyc, out, nl); \
  rate(NAME);
  SMEMLAB_WIDTH_ROW(lds_width_rate, 1, 0, "lds32_rate_row")
  SMEMLAB_WIDTH_ROW(lds_width_rate, 1, 1, "lds32_rate_bcast")
  SMEMLAB_WIDTH_ROW(lds_width_rate, 2, 0, "lds64_rate_row")
  SMEMLAB_WIDTH_ROW(lds_width_rate, 2, 1, "lds64_rate_bcast")
  SMEMLAB_WIDTH_ROW(lds_width_rate, 4, 0, "lds128_rate_row")
  SMEMLAB_WIDTH_ROW(lds_width_rate, 4, 1, "lds128_rate_bcast")
  SMEMLAB_WIDTH_ROW(sts_width_rate, 1, 0, "sts32_rate_row")
  SMEMLAB_WIDTH_ROW(sts_width_rate, 1, 1, "sts32_rate_same")
  SMEMLAB_WIDTH_ROW(sts_width_rate, 2, 0, "sts64_rate_row")
  SMEMLAB_WIDTH_ROW(sts_width_rate, 2, 1, "sts64_rate_same")
  SMEMLAB_WIDTH_ROW(sts_width_rate, 4, 0, "sts128_rate_row")
  SMEMLAB_WIDTH_ROW(sts_width_rate, 4, 1, "sts128_rate_same")
#undef SMEMLAB_WIDTH_ROW
  for (int r = 0; r < 2; ++r)
    ldg_v4_rate<0><<<132, 1024>>>((const float4*)(out + 8192), cyc, out, nl);
  rate("ldg128_rate_row");
  for (int r = 0; r < 2; ++r)
    ldg_v4_rate<1><<<132, 1024>>>((const float4*)(out + 8192), cyc, out, nl);
  rate("ldg128_rate_bcast");
}

// Phases of resident blocks (time31f), alone with `microbench phases`.
// Each row: the median block's clock64 cycles per iteration, and the SM's
// (the event-timed kernel less an empty one's, at 1.98 GHz) per iteration.
void phase_rows(long long* cyc, float* out, const float* g) {
  const int iters = 256;
  const float empty = median_us([] { empty_kernel<<<132, 256>>>(); });
  struct Row {
    int mode, threads, spin, k;
  };
  std::vector<Row> rows;
  for (int threads : {1024, 512, 256})
    for (int spin : {0, 512, 2048}) rows.push_back({0, threads, spin, 4});
  for (int threads : {1024, 512, 256}) rows.push_back({1, threads, 0, 4});
  // The data-path phase's length apart from the block's size.
  rows.push_back({0, 1024, 512, 1});
  rows.push_back({0, 256, 512, 16});
  rows.push_back({0, 256, 2048, 16});
  for (const Row& row : rows)
    for (int r : {1, 2, 4, 8}) {
      if (row.threads * r > 2048) continue;
      const int blocks = 132 * r;
      auto launch = [&] {
        if (row.mode == 0)
          phase_steps<0><<<blocks, row.threads>>>(cyc, g, out, iters, row.spin, row.k);
        else
          phase_steps<1><<<blocks, row.threads>>>(cyc, g, out, iters, row.spin, row.k);
      };
      const float us = median_us(launch, 5);
      launch();
      CHECK(cudaDeviceSynchronize());
      std::printf("param phase_%s_S%d_T%d_R%d_k%d %.1f cycles/iteration (SM: %.1f)\n",
                  row.mode == 0 ? "spin" : "l2", row.spin, row.threads, r, row.k,
                  median_cycles(cyc, blocks) / iters, (us - empty) * 1980.0 / iters);
    }
  const int k = 4;
  // Rounds: 4 x the resident blocks, a quarter of the iterations each,
  // against one round (event-timed, the launch included in both).
  for (int threads : {1024, 256})
    for (int spin : {512, 2048}) {
      const int blocks = 132 * 2048 / threads;
      const float one =
          median_us([&] { phase_steps<0><<<blocks, threads>>>(cyc, g, out, iters, spin, k); }, 11);
      const float four = median_us(
          [&] { phase_steps<0><<<blocks * 4, threads>>>(cyc, g, out, iters / 4, spin, k); }, 11);
      std::printf("param phase_rounds_S%d_T%d_R%d %.2f us (one round: %.2f us)\n", spin, threads,
                  blocks / 132, four, one);
    }
  const float one = median_us([&] { phase_steps<2><<<264, 1024>>>(cyc, g, out, iters, 0, k); }, 11);
  const float four =
      median_us([&] { phase_steps<2><<<264 * 4, 1024>>>(cyc, g, out, iters / 4, 0, k); }, 11);
  std::printf("param phase_rounds_nobar_T1024_R2 %.2f us (one round: %.2f us)\n", four, one);
  phase_steps<2><<<264, 1024>>>(cyc, g, out, iters, 0, k);
  CHECK(cudaDeviceSynchronize());
  std::printf("param phase_nobar_T1024_R2 %.1f cycles/iteration\n",
              median_cycles(cyc, 264) / iters);
}

// The barrier's cost after a phase (time31g), alone with `microbench
// drain`: each row the SM's cycles per iteration (the event-timed kernel
// less an empty one's, at 1.98 GHz) with and without the barrier, and the
// median block's clock64 cycles with it.
void drain_rows(long long* cyc, float* out, const float* g) {
  const int iters = 1024;
  const float empty = median_us([] { empty_kernel<<<132, 256>>>(); });
  static const char* const kinds[] = {"lds", "sts", "ffma", "none", "l2"};
  for (int kind = 0; kind < 5; ++kind)
    for (int threads : {128, 256, 512, 1024})
      for (int r : {1, 2, 4, 8, 16}) {
        if (threads * r > 2048) continue;
        for (int k : {1, 4}) {
          if (kind == 3 && k > 1) continue;
          const int blocks = 132 * r;
          float us[2];
          for (int bar = 0; bar < 2; ++bar) {
            auto launch = [&] {
              if (kind == 0) drain_steps<0><<<blocks, threads>>>(cyc, g, out, iters, k, bar);
              if (kind == 1) drain_steps<1><<<blocks, threads>>>(cyc, g, out, iters, k, bar);
              if (kind == 2) drain_steps<2><<<blocks, threads>>>(cyc, g, out, iters, k, bar);
              if (kind == 3) drain_steps<3><<<blocks, threads>>>(cyc, g, out, iters, k, bar);
              if (kind == 4) drain_steps<4><<<blocks, threads>>>(cyc, g, out, iters, k, bar);
            };
            us[bar] = median_us(launch, 5);
            if (bar == 1) launch();
          }
          CHECK(cudaDeviceSynchronize());
          const double without = (us[0] - empty) * 1980.0 / iters;
          const double with = (us[1] - empty) * 1980.0 / iters;
          std::printf(
              "param drain_%s_T%d_R%d_k%d %.1f cycles/barrier (SM: %.1f with, %.1f without; "
              "block: %.1f)\n",
              kinds[kind], threads, r, k, with - without, with, without,
              median_cycles(cyc, blocks) / iters);
        }
      }
  // Rounds: phase_steps' 256 iterations split into n rounds of resident
  // blocks, event-timed (the launch included).
  const int k = 4;
  for (int mode : {0, 1})
    for (int threads : {1024, 256}) {
      const int per_sm = 2048 / threads;
      for (int n : {1, 2, 4, 8, 16, 32}) {
        const int blocks = 132 * per_sm * n, it = 256 / n;
        const float us = median_us(
            [&] {
              if (mode == 0)
                phase_steps<0><<<blocks, threads>>>(cyc, g, out, it, 512, k);
              else
                phase_steps<1><<<blocks, threads>>>(cyc, g, out, it, 0, k);
            },
            11);
        std::printf("param drain_rounds_%s_T%d_R%d_n%d %.2f us (%.1f SM cycles/iteration)\n",
                    mode == 0 ? "spin" : "l2", threads, per_sm, n, us, (us - empty) * 1980.0 / 256);
      }
    }
}

// The step the later rounds keep, by blocks per SM (time31h, alone with
// `microbench kept`): phase_steps' 256 iterations (spin 512 or the L2 load,
// then 32 LDS.32 a warp) in n = 1, 2, 4 rounds of R resident blocks of T
// threads, at 64 warps per SM (R = 2, 4, 8) and at 32 (R = 1, 2, 4, 8),
// event-timed: SM cycles per iteration (at 1.98 GHz, less an empty kernel).
void kept_rows(float* out, const float* g, long long* cyc) {
  const float empty = median_us([] { empty_kernel<<<132, 256>>>(); });
  struct Shape {
    int threads, per_sm;
  };
  const Shape shapes[] = {{1024, 2}, {512, 4}, {256, 8}, {1024, 1}, {512, 2}, {256, 4}, {128, 8}};
  for (int mode : {0, 1})
    for (const Shape& sh : shapes)
      for (int n : {1, 2, 4}) {
        const int blocks = 132 * sh.per_sm * n, it = 256 / n;
        const float us = median_us(
            [&] {
              if (mode == 0)
                phase_steps<0><<<blocks, sh.threads>>>(cyc, g, out, it, 512, 4);
              else
                phase_steps<1><<<blocks, sh.threads>>>(cyc, g, out, it, 0, 4);
            },
            11);
        std::printf("param kept_%s_T%d_R%d_n%d %.2f us (%.1f SM cycles/iteration)\n",
                    mode == 0 ? "spin" : "l2", sh.threads, sh.per_sm, n, us,
                    (us - empty) * 1980.0 / 256);
      }
}

int main(int argc, char** argv) {
  long long* cyc;
  float* out;
  CHECK(cudaMalloc(&cyc, 132 * 256 * sizeof(long long)));  // drain_rounds: 33792 blocks
  CHECK(cudaMalloc(&out, 132 * 8 * 1024 * sizeof(float)));
  if (argc > 1 && std::string(argv[1]) == "phases") {
    float* g;
    CHECK(cudaMalloc(&g, size_t(4) << 20));
    CHECK(cudaMemset(g, 0, size_t(4) << 20));
    phase_rows(cyc, out, g);
    CHECK(cudaGetLastError());
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "drain") {
    float* g;
    CHECK(cudaMalloc(&g, size_t(4) << 20));
    CHECK(cudaMemset(g, 0, size_t(4) << 20));
    drain_rows(cyc, out, g);
    CHECK(cudaGetLastError());
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "kept") {
    float* g;
    CHECK(cudaMalloc(&g, size_t(4) << 20));
    CHECK(cudaMemset(g, 0, size_t(4) << 20));
    kept_rows(out, g, cyc);
    CHECK(cudaGetLastError());
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "widths") {
    width_rates(cyc, out);
    CHECK(cudaGetLastError());
    return 0;
  }
  const int n = 4096;
  for (int threads : {256, 1024}) {
    barrier_loop<<<132, threads>>>(cyc, n, 1);
    CHECK(cudaDeviceSynchronize());
    double with = median_cycles(cyc, 132);
    barrier_loop<<<132, threads>>>(cyc, n, 0);
    CHECK(cudaDeviceSynchronize());
    double without = median_cycles(cyc, 132);
    std::printf("param barrier_cycles_%d %.2f cycles (loop %.2f)\n", threads, (with - without) / n,
                without / n);
    tree_steps<<<132, threads>>>(cyc, out, n);
    CHECK(cudaDeviceSynchronize());
    std::printf("param tree_step_cycles_%d %.2f cycles\n", threads, median_cycles(cyc, 132) / n);
  }
  // Eight 256-thread blocks per SM: do resident blocks' barriers overlap?
  barrier_loop<<<132 * 8, 256>>>(cyc, n, 1);
  CHECK(cudaDeviceSynchronize());
  std::printf("param barrier_cycles_256x8 %.2f cycles\n", median_cycles(cyc, 132 * 8) / n);
  std::printf("param launch_us_1 %.3f us\n", median_us([] { empty_kernel<<<1, 32>>>(); }));
  std::printf("param launch_us_1056 %.3f us\n", median_us([] { empty_kernel<<<1056, 256>>>(); }));
  const size_t bytes = size_t(256) << 20, n16 = bytes / 16;
  float4* buf;
  CHECK(cudaMalloc(&buf, bytes));
  float us = median_us([&] { store16<<<132 * 16, 256>>>(buf, n16); });
  std::printf("param dram_write_gbs %.1f GB/s (%.2f us)\n", bytes / us / 1e3, us);
  us = median_us([&] { load16<<<132 * 16, 256>>>(buf, out, n16); });
  std::printf("param dram_read_gbs %.1f GB/s (%.2f us)\n", bytes / us / 1e3, us);
  float full = us;
  us =
      median_us([&] { load_one_per_line<<<132 * 16, 256>>>((const float*)buf, out, bytes / 128); });
  std::printf("param dram_granule_bytes %.1f bytes (one word per line: %.2f us, all: %.2f us)\n",
              128.0 * us / full, us, full);
  for (size_t mib : {8, 32}) {
    size_t b = mib << 20;
    us = median_us([&] { store16<<<132 * 16, 256>>>(buf, b / 16); });
    std::printf("param dram_write_gbs_%zuMiB %.1f GB/s (%.2f us)\n", mib, b / us / 1e3, us);
  }
  // Partial-sector stores: per 32-byte sector, the DRAM bytes at the full
  // write's rate.
  store16<<<132 * 16, 256>>>(buf, n16);
  float full_write = median_us([&] { store16<<<132 * 16, 256>>>(buf, n16); });
  us = median_us([&] { store_one_per_sector<<<132 * 16, 256>>>((float*)buf, bytes / 32); });
  std::printf(
      "param partial_store_bytes %.1f bytes per sector (one word per sector: %.2f us, full: %.2f "
      "us)\n",
      32.0 * us / full_write, us, full_write);
  {
    const int cols = 4096, rows = int(bytes / 4 / cols);
    us = median_us(
        [&] { store_columns<<<dim3(rows / 32, cols / 8), dim3(32, 8)>>>((float*)buf, cols); });
    std::printf(
        "param column_store_bytes %.1f bytes per sector (columns: %.2f us, full: %.2f us)\n",
        32.0 * us / full_write, us, full_write);
  }
  const char* dep_names[] = {"imad", "ffma", "iadd"};
  for (int kind = 0; kind < 3; ++kind) {
    dep_chain<<<1, 32>>>(cyc, (unsigned*)out, kind, 3, 7);
    dep_chain<<<1, 32>>>(cyc, (unsigned*)out, kind, 3, 7);
    CHECK(cudaDeviceSynchronize());
    std::printf("param dep_%s_cycles %.2f cycles\n", dep_names[kind], median_cycles(cyc, 1) / 1024);
  }
  const int na = 1024;
  atomic_chain<<<132, 256>>>(cyc, na, 1);
  CHECK(cudaDeviceSynchronize());
  std::printf("param dsmem_atomic_latency %.2f cycles\n", median_cycles(cyc, 132) / na);
  atomic_chain<<<132, 256>>>(cyc, na, 0);
  CHECK(cudaDeviceSynchronize());
  std::printf("param shared_atomic_latency %.2f cycles\n", median_cycles(cyc, 132) / na);
  atomic_stream<<<132, 256>>>(cyc, na);
  CHECK(cudaDeviceSynchronize());
  std::printf("param dsmem_atomic_cycles_per_warp %.2f cycles\n", median_cycles(cyc, 132) / na / 8);
  // time31c: shared and L1-hit load throughput, block turnover, barriers
  // of 8 resident blocks.
  const int nl = 2048;
  auto rate = [&](const char* name) {
    CHECK(cudaDeviceSynchronize());
    std::printf("param %s %.3f warp-instructions/clk/SM (%.0f cycles)\n", name,
                32.0 * 8 * nl / median_cycles(cyc, 132), median_cycles(cyc, 132));
  };
  for (int r = 0; r < 2; ++r) lds_rate<0><<<132, 1024>>>(cyc, out, nl);
  rate("lds_rate_row");
  for (int r = 0; r < 2; ++r) lds_rate<1><<<132, 1024>>>(cyc, out, nl);
  rate("lds_rate_bcast");
  for (int r = 0; r < 2; ++r) lds_rate<2><<<132, 1024>>>(cyc, out, nl);
  rate("lds_rate_v4");
  for (int r = 0; r < 2; ++r) lds_rate<3><<<132, 1024>>>(cyc, out, nl);
  rate("lds_rate_v4_bcast");
  for (int r = 0; r < 2; ++r) ldg_rate<0><<<132, 1024>>>(out + 8192, cyc, out, nl);
  rate("ldg_rate_row");
  for (int r = 0; r < 2; ++r) ldg_rate<1><<<132, 1024>>>(out + 8192, cyc, out, nl);
  rate("ldg_rate_bcast");
  {
    float few = median_us([] { empty_kernel<<<132, 256>>>(); });
    float many = median_us([] { empty_kernel<<<65536, 256>>>(); });
    float many1k = median_us([] { empty_kernel<<<16384, 1024>>>(); });
    std::printf(
        "param block_cycles_256 %.1f cycles/block/SM (65536 blocks: %.2f us, 132: %.2f us)\n",
        (many - few) * 1e-6 * 1.98e9 / (65536.0 / 132), many, few);
    std::printf("param block_cycles_1024 %.1f cycles/block/SM (16384 blocks: %.2f us)\n",
                (many1k - few) * 1e-6 * 1.98e9 / (16384.0 / 132), many1k);
  }
  {
    const float few = median_us([] { empty_kernel<<<132, 256>>>(); });
    for (long long spin : {0, 256, 512, 1024, 2048, 4096, 8192}) {
      const float us = median_us([&] { block_spin<<<65536, 256>>>(spin); }, 11);
      std::printf("param block_spin_%lld %.1f cycles/block/SM (%.2f us)\n", spin,
                  (us - few) * 1e-6 * 1.98e9 / (65536.0 / 132), us);
    }
  }
  for (int per_sm : {1, 8}) {
    barrier_only<<<132 * per_sm, 256>>>(cyc, n, 1);
    CHECK(cudaDeviceSynchronize());
    double with = median_cycles(cyc, 132 * per_sm);
    barrier_only<<<132 * per_sm, 256>>>(cyc, n, 0);
    CHECK(cudaDeviceSynchronize());
    double without = median_cycles(cyc, 132 * per_sm);
    std::printf("param barrier_cycles_256x%d_only %.2f cycles (loop %.2f)\n", per_sm,
                (with - without) / n, without / n);
  }
  width_rates(cyc, out);
  CHECK(cudaGetLastError());
  return 0;
}
