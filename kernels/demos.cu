// Course demonstrations: warp divergence (a branch on threadIdx.x % 3 makes
// every warp run all three paths; the same branch taken per warp costs one
// path) and global-memory coalescing (reads at stride s spread a warp over
// up to 32 sectors, so useful bandwidth drops with s). Device code only; the
// host side lives in bench/demos_bench.cu.
//
// Emulator launch recipes (small sizes):
// clang-format off
// smemlab: --kernel divergenceMod3 --grid 2 --block 128 --arg int[256]=zeros --arg int=256 --arg int=8
// smemlab: --kernel divergenceByWarp --grid 2 --block 128 --arg int[256]=zeros --arg int=256 --arg int=8
// smemlab: --kernel fillHash --grid 2 --block 128 --arg int[1000]=zeros --arg long=1000 --arg int=7
// smemlab: --kernel strideRead --grid 2 --block 128 --arg int[4000]=random(1) --arg int[1000]=zeros --arg long=1000 --arg int=4
// clang-format on
#include <cstdint>

// Three paths with different instruction sequences (so the compiler cannot
// fold them into one path with selected constants).
__device__ __forceinline__ unsigned demo_path(int path, unsigned x, int iters) {
  if (path == 0) {
    for (int k = 0; k < iters; ++k) x = x * 1664525u + 1013904223u;  // LCG
  } else if (path == 1) {
    for (int k = 0; k < iters; ++k) {  // xorshift32
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
    }
  } else {
    for (int k = 0; k < iters; ++k) x = ((x << 7) | (x >> 25)) * 0x9E3779B9u + 7u;  // rotate-mul
  }
  return x;
}

// Divergent: neighbouring threads take different paths.
extern "C" __global__ void divergenceMod3(unsigned* out, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = demo_path(threadIdx.x % 3, (unsigned)i, iters);
}

// Not divergent: the path depends on the warp index only; same work in total.
extern "C" __global__ void divergenceByWarp(unsigned* out, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = demo_path((threadIdx.x / 32) % 3, (unsigned)i, iters);
}

// Device-side input for the stride demo (gigabytes need no host upload):
// a[j] = hash(j, seed).
__device__ __forceinline__ unsigned demo_hash(unsigned long long j, unsigned seed) {
  unsigned long long z = j * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (unsigned)(z ^ (z >> 31));
}
extern "C" __global__ void fillHash(unsigned* a, long long n, unsigned seed) {
  for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n;
       j += (long long)gridDim.x * blockDim.x)
    a[j] = demo_hash((unsigned long long)j, seed);
}

// out[i] = in[i * s]: s = 1 is coalesced (one 128-byte line per warp);
// s >= 8 gives every thread its own 32-byte sector.
extern "C" __global__ void strideRead(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      long long n, int s) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i * s];
}
