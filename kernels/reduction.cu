// Sum reduction of n floats, after Mark Harris, "Optimizing Parallel Reduction
// in CUDA", plus warp shuffles and a single-launch best version.
//
// Device code only; the host side is bench/reduction_bench.cu. The reduce_*
// kernels (all but reduce_best) write one partial sum per block to out[]; the
// host reduces to ONE value by launching the same kernel again on the
// partials until one block remains (multi-pass, as in Harris's slides).
// reduce_best does it in one launch: each block writes its partial, and the
// last block to finish (an atomic ticket after a __threadfence) sums the
// partials and resets the ticket for the next launch. All kernels expect
// blockDim.x == kReduceBlock (256) and take any n >= 1 (n < 2^31).
//
// Emulator launch recipes (parameters: in, out[, ...], n):
// clang-format off
// smemlab: --kernel reduce_interleaved_divergent --grid 16 --block 256 --arg float[4096]=random(1) --arg float[16]=zeros --arg int=4096
// smemlab: --kernel reduce_interleaved_strided --grid 16 --block 256 --arg float[4096]=random(1) --arg float[16]=zeros --arg int=4096
// smemlab: --kernel reduce_sequential --grid 16 --block 256 --arg float[4096]=random(1) --arg float[16]=zeros --arg int=4096
// smemlab: --kernel reduce_first_add --grid 9 --block 256 --arg float[4097]=random(1) --arg float[9]=zeros --arg int=4097
// smemlab: --kernel reduce_unrolled_warp --grid 8 --block 256 --arg float[4096]=random(1) --arg float[8]=zeros --arg int=4096
// smemlab: --kernel reduce_shuffle --grid 8 --block 256 --arg float[4096]=random(1) --arg float[8]=zeros --arg int=4096
// smemlab: --kernel reduce_best --grid 2 --block 256 --arg float[4099]=random(1) --arg float[2]=zeros --arg int[1]=zeros --arg float[1]=zeros --arg int=4099
// smemlab: --kernel reduce_grid_stride_u2_occ8 --grid 2 --block 256 --arg float[4099]=random(1) --arg float[2]=zeros --arg int[1]=zeros --arg float[1]=zeros --arg int=4099
// smemlab: --kernel reduce_grid_stride_u8 --grid 2 --block 256 --arg float[4099]=random(1) --arg float[2]=zeros --arg int[1]=zeros --arg float[1]=zeros --arg int=4099
// clang-format on
#include <cstdint>

constexpr int kReduceBlock = 256;

// Interleaved addressing with a divergent branch: at step s only threads with
// tid % 2s == 0 work, so every warp stays busy with ever fewer active lanes.
extern "C" __global__ void reduce_interleaved_divergent(const float* __restrict__ in,
                                                        float* __restrict__ out, int n) {
  __shared__ float s[kReduceBlock];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * kReduceBlock + tid;
  s[tid] = i < (unsigned)n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned step = 1; step < kReduceBlock; step *= 2) {
    if (tid % (2 * step) == 0) s[tid] += s[tid + step];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// Interleaved addressing with a strided index: the active threads are now
// contiguous (no divergence), but thread t touches s[2*step*t], so a warp's
// accesses pile into few banks (2-way conflicts at step 1, up to 16-way).
extern "C" __global__ void reduce_interleaved_strided(const float* __restrict__ in,
                                                      float* __restrict__ out, int n) {
  __shared__ float s[kReduceBlock];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * kReduceBlock + tid;
  s[tid] = i < (unsigned)n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned step = 1; step < kReduceBlock; step *= 2) {
    const unsigned idx = 2 * step * tid;
    if (idx < kReduceBlock) s[idx] += s[idx + step];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// Sequential addressing: thread t adds s[t + half] into s[t]; contiguous
// threads touch contiguous words, so no bank conflicts and no divergence
// until fewer than 32 threads are active. Half the threads idle from the start.
extern "C" __global__ void reduce_sequential(const float* __restrict__ in, float* __restrict__ out,
                                             int n) {
  __shared__ float s[kReduceBlock];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * kReduceBlock + tid;
  s[tid] = i < (unsigned)n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned half = kReduceBlock / 2; half > 0; half /= 2) {
    if (tid < half) s[tid] += s[tid + half];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// Loads two elements per thread and adds them while loading: half the blocks,
// and no thread is idle in the first step.
__device__ __forceinline__ float load_two(const float* __restrict__ in, int n) {
  const unsigned i = blockIdx.x * (2 * kReduceBlock) + threadIdx.x;
  float v = i < (unsigned)n ? in[i] : 0.f;
  if (i + kReduceBlock < (unsigned)n) v += in[i + kReduceBlock];
  return v;
}

// First add during load, then sequential addressing.
extern "C" __global__ void reduce_first_add(const float* __restrict__ in, float* __restrict__ out,
                                            int n) {
  __shared__ float s[kReduceBlock];
  const unsigned tid = threadIdx.x;
  s[tid] = load_two(in, n);
  __syncthreads();
  for (unsigned half = kReduceBlock / 2; half > 0; half /= 2) {
    if (tid < half) s[tid] += s[tid + half];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// First add during load, then the last 64 -> 1 steps by one warp without
// __syncthreads(). Harris's original relied on implicit warp lockstep with a
// volatile pointer; since Volta's independent thread scheduling that is a
// race, so each step reads, __syncwarp()s, writes, __syncwarp()s.
extern "C" __global__ void reduce_unrolled_warp(const float* __restrict__ in,
                                                float* __restrict__ out, int n) {
  __shared__ float s[kReduceBlock];
  const unsigned tid = threadIdx.x;
  s[tid] = load_two(in, n);
  __syncthreads();
  for (unsigned half = kReduceBlock / 2; half > 32; half /= 2) {
    if (tid < half) s[tid] += s[tid + half];
    __syncthreads();
  }
  if (tid < 32) {
    float v = s[tid] + s[tid + 32];
#pragma unroll
    for (unsigned off = 16; off > 0; off /= 2) {
      __syncwarp();
      s[tid] = v;
      __syncwarp();
      v += s[tid + off];
    }
    if (tid == 0) out[blockIdx.x] = v;
  }
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

// Block-wide sum with shuffles: each warp reduces in registers, one word per
// warp goes through shared memory, and warp 0 reduces those. The result is
// valid in thread 0.
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float warp_sums[kReduceBlock / 32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < kReduceBlock / 32 ? warp_sums[threadIdx.x] : 0.f;
  if (warp == 0) v = warp_sum(v);
  return v;
}

// Shuffle-based: first add during load, then registers and warp shuffles;
// shared memory only carries 8 warp sums (one barrier instead of eight).
extern "C" __global__ void reduce_shuffle(const float* __restrict__ in, float* __restrict__ out,
                                          int n) {
  const float v = block_sum(load_two(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Grid-stride reduction in one launch: a grid of a few blocks per SM strides
// over the input with 16-byte loads, kUnroll independent float4 loads in
// flight per thread per iteration; each block reduces with shuffles and
// writes one partial; the last block done sums the partials in a fixed order
// and writes out[0].
template <int kUnroll>
__device__ __forceinline__ void reduce_grid_stride_body(const float* __restrict__ in,
                                                        float* __restrict__ partials,
                                                        unsigned int* __restrict__ ticket,
                                                        float* __restrict__ out, int n) {
  const int n4 = n / 4;
  const float4* __restrict__ in4 = reinterpret_cast<const float4*>(in);
  const int stride = gridDim.x * kReduceBlock;
  int i = blockIdx.x * kReduceBlock + threadIdx.x;
  float4 acc[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) acc[u] = make_float4(0.f, 0.f, 0.f, 0.f);
  for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
    float4 x[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) x[u] = in4[i + u * stride];  // all loads issued first
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      acc[u].x += x[u].x;
      acc[u].y += x[u].y;
      acc[u].z += x[u].z;
      acc[u].w += x[u].w;
    }
  }
  for (; i < n4; i += stride) {
    const float4 x = in4[i];
    acc[0].x += x.x, acc[0].y += x.y, acc[0].z += x.z, acc[0].w += x.w;
  }
#pragma unroll
  for (int w = kUnroll / 2; w > 0; w /= 2)
#pragma unroll
    for (int u = 0; u < w; ++u) {
      acc[u].x += acc[u + w].x;
      acc[u].y += acc[u + w].y;
      acc[u].z += acc[u + w].z;
      acc[u].w += acc[u + w].w;
    }
  float v = (acc[0].x + acc[0].y) + (acc[0].z + acc[0].w);
  const int tail = blockIdx.x * kReduceBlock + threadIdx.x;  // the n % 4 last elements
  if (tail < n - 4 * n4) v += in[4 * n4 + tail];
  v = block_sum(v);

  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    __threadfence();  // the partial is visible device-wide before the ticket is taken
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();  // order the partial reads after the ticket
  float w = 0.f;
  for (unsigned j = threadIdx.x; j < gridDim.x; j += kReduceBlock)
    w += *static_cast<volatile float*>(&partials[j]);
  w = block_sum(w);
  if (threadIdx.x == 0) {
    out[0] = w;
    *ticket = 0;  // ready for the next launch (kernels on one stream do not overlap)
  }
}

// Best: grid-stride float4 loads (4 in flight per thread), shuffles,
// last-block-done; one launch, grid = blocks resident at once.
extern "C" __global__ void __launch_bounds__(kReduceBlock)
    reduce_best(const float* __restrict__ in, float* __restrict__ partials,
                unsigned int* __restrict__ ticket, float* __restrict__ out, int n) {
  reduce_grid_stride_body<4>(in, partials, ticket, out, n);
}

// Two float4 loads in flight per thread, registers capped for 8 blocks (2048 threads) per SM.
extern "C" __global__ void __launch_bounds__(kReduceBlock, 8)
    reduce_grid_stride_u2_occ8(const float* __restrict__ in, float* __restrict__ partials,
                               unsigned int* __restrict__ ticket, float* __restrict__ out, int n) {
  reduce_grid_stride_body<2>(in, partials, ticket, out, n);
}

// As reduce_best with 8 float4 loads in flight per thread, 4 blocks per SM.
extern "C" __global__ void __launch_bounds__(kReduceBlock, 4)
    reduce_grid_stride_u8(const float* __restrict__ in, float* __restrict__ partials,
                          unsigned int* __restrict__ ticket, float* __restrict__ out, int n) {
  reduce_grid_stride_body<8>(in, partials, ticket, out, n);
}
