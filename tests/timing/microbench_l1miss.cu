// What an L1 miss costs the SM's load path (issue 31, time31h): a
// micro-benchmark of its own, none of the judged kernels. 8 resident blocks
// of 256 threads per SM (64 warps, as many as an SM holds), each warp n
// iterations of 8 independent loads; the first M of the 8 go where L1
// misses and L2 holds the line (a 16 MiB ring every warp walks from its own
// start, 8 lines an iteration), the others to a 16 KiB array every warp
// reads again and again (L1 hits). Cycles per iteration of the SM (the
// median block's clock64: the 8 blocks run side by side), against M:
//   MODE 0: a 128-byte row per request, the warp's own (4 sectors);
//   MODE 1: one word for the warp (1 sector, every lane the same address);
//   MODE 2: a 128-byte row the block's 8 warps all read in the same
//           iteration (the first request misses, the others find the line
//           in flight or filled: the reads of a row shared by the warps);
//   MODE 3: MODE 0 through ld.global.cg (L2 only: no L1 allocation).
// Loads are ld.global.nc (LDG.E.CONSTANT, as `const __restrict__` gives),
// each added to a register. Prints
//   param l1miss_m<MODE>_M<M> <cycles/iteration> (... per request ...)
// With `microbench_l1miss once` each row runs once after one warm-up of the
// ring, for Nsight Compute (--kernel-name regex:l1_miss).
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

constexpr unsigned kRingLines = 1u << 17;  // 16 MiB of 128-byte lines: in L2, never in L1
constexpr unsigned kHotLines = 128;        // 16 KiB: always in L1

template <int MODE, int M>
__global__ void __launch_bounds__(256)
    l1_miss(const float* __restrict__ hot, const float* __restrict__ ring, long long* cycles,
            float* out, int n) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned warp = blockIdx.x * 8 + (threadIdx.x >> 5);
  // Starts 8248 lines apart: a warp's 512 iterations walk 4096 lines, so no
  // two warps of an SM read a line within millions of bytes of each other
  // (MODE 2: the block's warps share the start).
  const unsigned start = (MODE == 2 ? blockIdx.x * 8 : warp) * 8248u;
  float acc[8] = {};
  for (unsigned i = threadIdx.x; i < kHotLines * 32; i += blockDim.x) acc[0] += __ldg(hot + i);
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < n; ++it) {
    const unsigned line = (start + 8u * unsigned(it)) & (kRingLines - 1);
    const float* c = ring + size_t(line) * 32 + (MODE == 1 ? 0 : lane);
    const float* h = hot + (unsigned(it) * 8 & (kHotLines - 1)) * 32 + (MODE == 1 ? 0 : lane);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float x;
      if (j < M)
        x = MODE == 3 ? __ldcg(c + j * 32) : __ldg(c + j * 32);
      else
        x = __ldg(h + j * 32);
      acc[j] += x;
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  float t = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) t += acc[j];
  if (t == -1.0f) out[0] = t;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

__global__ void ring_warm(const float* __restrict__ ring, float* out) {
  float a = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < size_t(kRingLines) * 32;
       i += size_t(gridDim.x) * blockDim.x)
    a += __ldcg(ring + i);
  if (a == -1.0f) out[0] = a;
}

double median_cycles(long long* d, int blocks) {
  std::vector<long long> h(blocks);
  CHECK(cudaMemcpy(h.data(), d, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
  std::sort(h.begin(), h.end());
  return double(h[blocks / 2]);
}

struct Setup {
  const float* hot;
  const float* ring;
  long long* cyc;
  float* out;
  bool once;
};

template <int MODE, int M>
void row(const Setup& s) {
  const int n = 512, blocks = 132 * 8;
  const int runs = s.once ? 1 : 5;
  std::vector<double> c;
  for (int r = 0; r < runs; ++r) {
    l1_miss<MODE, M><<<blocks, 256>>>(s.hot, s.ring, s.cyc, s.out, n);
    CHECK(cudaDeviceSynchronize());
    c.push_back(median_cycles(s.cyc, blocks) / n);
  }
  std::sort(c.begin(), c.end());
  const double it = c[c.size() / 2];
  // Per SM and iteration: 64 warps x 8 requests, 64 x M of them to the ring.
  const double sectors = MODE == 1 ? 1.0 : 4.0;
  const double miss_sectors = 64.0 * M * sectors / (MODE == 2 ? 8.0 : 1.0);
  std::printf(
      "param l1miss_m%d_M%d %.1f cycles/iteration (%.3f cycles/request; %.0f ring sectors an "
      "iteration, %.3f of them per cycle)\n",
      MODE, M, it, it / 512.0, miss_sectors, miss_sectors / it);
}

template <int MODE>
void rows(const Setup& s) {
  row<MODE, 0>(s);
  row<MODE, 1>(s);
  row<MODE, 2>(s);
  row<MODE, 4>(s);
  row<MODE, 8>(s);
}

int main(int argc, char** argv) {
  Setup s{};
  s.once = argc > 1 && std::string(argv[1]) == "once";
  float *hot, *ring, *out;
  CHECK(cudaMalloc(&hot, kHotLines * 128));
  CHECK(cudaMalloc(&ring, size_t(kRingLines) * 128));
  CHECK(cudaMalloc(&out, 1024));
  CHECK(cudaMalloc(&s.cyc, 132 * 8 * sizeof(long long)));
  CHECK(cudaMemset(hot, 0, kHotLines * 128));
  CHECK(cudaMemset(ring, 0, size_t(kRingLines) * 128));
  s.hot = hot;
  s.ring = ring;
  s.out = out;
  ring_warm<<<132 * 8, 256>>>(ring, out);
  CHECK(cudaDeviceSynchronize());
  rows<0>(s);
  rows<1>(s);
  rows<2>(s);
  rows<3>(s);
  CHECK(cudaGetLastError());
  return 0;
}
