// Micro-benchmarks of the memory hierarchy: latency by pointer chasing (one
// thread follows a random cyclic permutation; each load's address depends on
// the previous load, so cycles per step = load latency; the chase starts at
// *out_idx and leaves its end there, so repeated launches walk on instead of
// re-reading lines that the last launch left in L2) in registers,
// shared, constant, local, L1, L2 and device memory, and shared-memory
// bandwidth with conflict-free 4/8/16-byte loads by many warps.
// Device code only; the host side lives in bench/memory_bench.cu.
//
// Emulator launch recipes (small sizes; outputs: final index, cycles):
// clang-format off
// smemlab: --kernel chaseShared --grid 1 --block 32 --shared 1024 --arg int[256]=zeros --arg int=256 --arg int=100 --arg int[1]=zeros --arg long[1]=zeros
// smemlab: --kernel chaseL1 --grid 1 --block 1 --arg int[256]=zeros --arg int=0 --arg int=100 --arg int[1]=zeros --arg long[1]=zeros
// smemlab: --kernel chaseL2 --grid 1 --block 1 --arg int[256]=zeros --arg int=0 --arg int=100 --arg int[1]=zeros --arg long[1]=zeros
// smemlab: --kernel chaseConstant --grid 1 --block 1 --arg int=100 --arg int[1]=zeros --arg long[1]=zeros
// smemlab: --kernel chaseLocal --grid 1 --block 1 --arg int[256]=zeros --arg int=256 --arg int=100 --arg int[1]=zeros --arg long[1]=zeros
// smemlab: --kernel registerLatency --grid 1 --block 1 --arg int=64 --arg float[1]=zeros --arg long[1]=zeros
// smemlab: --kernel smemBandwidth4 --grid 2 --block 256 --arg int[512]=zeros --arg int=4
// smemlab: --kernel smemBandwidth8 --grid 2 --block 256 --arg int[1024]=zeros --arg int=4
// smemlab: --kernel smemBandwidth16 --grid 2 --block 256 --arg int[2048]=zeros --arg int=4
// smemlab: --kernel l1ReadBandwidth --grid 2 --block 256 --arg int[8192]=iota --arg int[512]=zeros --arg int=2
// smemlab: --kernel l2ReadBandwidth --grid 2 --block 256 --arg int[8192]=iota --arg int=2048 --arg int[512]=zeros --arg int=2
// clang-format on
#include <cstdint>

// Chased permutation in constant memory (filled by the host; 16 KiB).
constexpr int kConstChase = 4096;
__constant__ unsigned c_chase[kConstChase];
constexpr int kLocalChase = 1024;  // entries of the local-memory chase

// Shared: the block copies next[0..n) into shared, thread 0 chases it.
extern "C" __global__ void chaseShared(const unsigned* next, int n, int steps, unsigned* out_idx,
                                       long long* out_cycles) {
  extern __shared__ unsigned s_next[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) s_next[i] = next[i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned j = *out_idx;
  const long long t0 = clock64();
  for (int k = 0; k < steps; ++k) j = s_next[j];
  const long long t1 = clock64();
  *out_idx = j;
  *out_cycles = t1 - t0;
}

// L1: loads cached in L1 (ld.global.ca); `warm` untimed steps first.
extern "C" __global__ void chaseL1(const unsigned* next, int warm, int steps, unsigned* out_idx,
                                   long long* out_cycles) {
  unsigned j = *out_idx;
  for (int k = 0; k < warm; ++k) j = __ldca(next + j);
  const long long t0 = clock64();
  for (int k = 0; k < steps; ++k) j = __ldca(next + j);
  const long long t1 = clock64();
  *out_idx = j;
  *out_cycles = t1 - t0;
}

// L2 and device memory: loads that skip L1 (ld.global.cg); the working set
// decides which level serves them.
extern "C" __global__ void chaseL2(const unsigned* next, int warm, int steps, unsigned* out_idx,
                                   long long* out_cycles) {
  unsigned j = *out_idx;
  for (int k = 0; k < warm; ++k) j = __ldcg(next + j);
  const long long t0 = clock64();
  for (int k = 0; k < steps; ++k) j = __ldcg(next + j);
  const long long t1 = clock64();
  *out_idx = j;
  *out_cycles = t1 - t0;
}

// Constant memory with a divergent-free but data-dependent index (one pass
// untimed to fill the constant cache).
extern "C" __global__ void chaseConstant(int steps, unsigned* out_idx, long long* out_cycles) {
  unsigned j = *out_idx;
  for (int k = 0; k < kConstChase; ++k) j = c_chase[j];
  const long long t0 = clock64();
  for (int k = 0; k < steps; ++k) j = c_chase[j];
  const long long t1 = clock64();
  *out_idx = j;
  *out_cycles = t1 - t0;
}

// Local memory: a per-thread array indexed at run time lives in local
// memory (cached in L1).
extern "C" __global__ void chaseLocal(const unsigned* next, int n, int steps, unsigned* out_idx,
                                      long long* out_cycles) {
  unsigned loc[kLocalChase];
  for (int i = 0; i < kLocalChase; ++i) loc[i] = i < n ? next[i] : 0u;
  unsigned j = *out_idx;
  for (int k = 0; k < n; ++k) j = loc[j];  // warm
  const long long t0 = clock64();
  for (int k = 0; k < steps; ++k) j = loc[j];
  const long long t1 = clock64();
  *out_idx = j;
  *out_cycles = t1 - t0;
}

// Registers: a chain of dependent FFMAs (16 per iteration).
extern "C" __global__ void registerLatency(int iters, float* out, long long* out_cycles) {
  float x = threadIdx.x * 1e-3f, a = 0.999f, b = 1e-4f;
  const long long t0 = clock64();
  for (int k = 0; k < iters; ++k) {
#pragma unroll
    for (int u = 0; u < 16; ++u) x = fmaf(x, a, b);
  }
  const long long t1 = clock64();
  *out = x;
  *out_cycles = t1 - t0;
}

// Shared-memory bandwidth: each block fills 32 KiB of shared with
// s[j] = j * 2654435761 + blockIdx.x, then every thread reads consecutive
// elements of type V (a warp reads 32 consecutive V: conflict-free) `iters`
// times over the buffer, shifted by 32 elements per pass, and writes the
// wrapping sum of (sum of the words of each V) ^ pass.
constexpr int kSmemBwBytes = 32768;
template <class V>
__device__ __forceinline__ unsigned vsum(V v);
template <>
__device__ __forceinline__ unsigned vsum<unsigned>(unsigned v) {
  return v;
}
template <>
__device__ __forceinline__ unsigned vsum<uint2>(uint2 v) {
  return v.x + v.y;
}
template <>
__device__ __forceinline__ unsigned vsum<uint4>(uint4 v) {
  return v.x + v.y + v.z + v.w;
}

template <class V>
__device__ __forceinline__ void smem_bandwidth(unsigned* out, int iters) {
  __shared__ __align__(16) unsigned s[kSmemBwBytes / 4];
  for (int i = threadIdx.x; i < kSmemBwBytes / 4; i += blockDim.x)
    s[i] = (unsigned)i * 2654435761u + blockIdx.x;
  __syncthreads();
  const V* sv = reinterpret_cast<const V*>(s);
  constexpr int kElems = kSmemBwBytes / sizeof(V);
  unsigned acc = 0;
  for (int it = 0; it < iters; ++it) {
#pragma unroll 8
    for (int e = threadIdx.x; e < kElems; e += blockDim.x)
      acc += vsum(sv[(e + it * 32) & (kElems - 1)]) ^ it;  // rotate: no load can be hoisted
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
// 4-byte loads (one wavefront per warp request).
extern "C" __global__ void smemBandwidth4(unsigned* out, int iters) {
  smem_bandwidth<unsigned>(out, iters);
}
// 8-byte loads (two wavefronts per warp request).
extern "C" __global__ void smemBandwidth8(unsigned* out, int iters) {
  smem_bandwidth<uint2>(out, iters);
}
// 16-byte loads (four wavefronts per warp request).
extern "C" __global__ void smemBandwidth16(unsigned* out, int iters) {
  smem_bandwidth<uint4>(out, iters);
}

// L1 read bandwidth: block b reads its own 16 KiB region (1024 uint4)
// `iters` times with ld.global.ca, rotated by 32 elements per pass (a warp
// stays on 512 contiguous bytes; no load can be hoisted out of the pass
// loop); 8 blocks of 256 threads per SM keep 128 KiB per SM in L1.
constexpr int kL1Region = 1024;  // uint4 per block
extern "C" __global__ void l1ReadBandwidth(const uint4* __restrict__ buf, unsigned* out,
                                           int iters) {
  const uint4* region = buf + (size_t)blockIdx.x * kL1Region;
  unsigned acc = 0;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kL1Region / 256; ++k) {
      const uint4 v = __ldca(region + ((threadIdx.x + k * 256 + it * 32) & (kL1Region - 1)));
      acc += (v.x + v.y + v.z + v.w) ^ (unsigned)it;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// L2 read bandwidth: the grid reads n4 uint4 (a power of two, sized to fit
// L2 but not the L1s) grid-stride with ld.global.cg, `iters` passes, each
// rotated by 32 elements.
extern "C" __global__ void l2ReadBandwidth(const uint4* __restrict__ buf, int n4, unsigned* out,
                                           int iters) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x, G = gridDim.x * blockDim.x;
  unsigned acc = 0;
  for (int it = 0; it < iters; ++it) {
#pragma unroll 4
    for (int j = g; j < n4; j += G) {
      const uint4 v = __ldcg(buf + ((j + it * 32) & (n4 - 1)));
      acc += (v.x + v.y + v.z + v.w) ^ (unsigned)it;
    }
  }
  out[g] = acc;
}
