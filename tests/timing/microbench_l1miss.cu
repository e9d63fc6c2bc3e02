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

template <int MODE, int M, int B = 8>
__global__ void __launch_bounds__(256)
    l1_miss(const float* __restrict__ hot, const float* __restrict__ ring, long long* cycles,
            float* out, int n) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned warp = blockIdx.x * 8 + (threadIdx.x >> 5);
  // Starts 8248 lines apart: a warp's 512 iterations walk 4096 lines, so no
  // two warps of an SM read a line within millions of bytes of each other
  // (MODE 2: the block's warps share the start).
  const unsigned start = (MODE == 2 ? blockIdx.x * 8 : warp) * 8248u;
  float acc[B] = {};
  for (unsigned i = threadIdx.x; i < kHotLines * 32; i += blockDim.x) acc[0] += __ldg(hot + i);
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < n; ++it) {
    const unsigned line = (start + unsigned(B) * unsigned(it)) & (kRingLines - 1);
    const float* c = ring + size_t(line) * 32 + (MODE == 1 ? 0 : lane);
    const float* h = hot + (unsigned(it) * B & (kHotLines - 1)) * 32 + (MODE == 1 ? 0 : lane);
#pragma unroll
    for (int j = 0; j < B; ++j) {
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
  for (int j = 0; j < B; ++j) t += acc[j];
  if (t == -1.0f) out[0] = t;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// One thread's chain of dependent loads through `lines` 128-byte lines
// (a random cycle, next[] built on the host), ld.global.cg: a load's round
// trip from L2 (or from L1 with ld.global.ca over a ring L1 holds).
template <bool CA>
__global__ void chase(const unsigned* __restrict__ next, long long* cycles, unsigned* out, int n) {
  unsigned i = 0;
  for (int r = 0; r < 2; ++r) {  // the first pass warms, the second is timed
    const long long t0 = clock64();
    for (int k = 0; k < n; ++k) i = CA ? __ldca(next + i * 32) : __ldcg(next + i * 32);
    const long long t1 = clock64();
    cycles[0] = t1 - t0;
  }
  out[0] = i;
}

__global__ void empty_kernel() {}

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

template <class F>
float median_us(F launch, int repeat = 7) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
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

// Batches (`microbench_l1miss batch`): each warp 4096 loads in iterations
// of B independent ones, M of them to the ring, at W warps per SM (W / 8
// blocks of 256 per SM), event-timed less an empty kernel, at 1.98 GHz:
// SM cycles per iteration of a warp (the batch's round trip when latency
// binds) and per load.
template <int MODE, int B, int M>
void batch_row(const Setup& s, int warps, float empty) {
  const int n = 4096 / B, blocks = 132 * warps / 8;
  const float us =
      median_us([&] { l1_miss<MODE, M, B><<<blocks, 256>>>(s.hot, s.ring, s.cyc, s.out, n); });
  const double cyc = (us - empty) * 1980.0;
  std::printf("param batch_m%d_B%d_M%d_W%d %.1f cycles/iteration (%.3f cycles/load/SM; %.2f us)\n",
              MODE, B, M, warps, cyc / n, cyc / (4096.0 * warps), us);
}

template <int MODE, int B>
void batch_rows(const Setup& s, float empty) {
  for (int w : {16, 32, 64}) {
    batch_row<MODE, B, 0>(s, w, empty);
    batch_row<MODE, B, 1>(s, w, empty);
  }
}

// The round trip of one load alone: a random cycle through R lines.
void chase_rows(unsigned* next, long long* cyc, unsigned* out) {
  for (unsigned mib : {0u, 4u, 8u, 16u, 32u, 64u}) {
    const unsigned lines = mib ? mib << 13 : 128;  // 0: 16 KiB, L1-resident
    std::vector<unsigned> order(lines), h(size_t(lines) * 32, 0);
    for (unsigned i = 0; i < lines; ++i) order[i] = i;
    srand(7);
    for (unsigned i = lines - 1; i > 0; --i) std::swap(order[i], order[unsigned(rand()) % (i + 1)]);
    for (unsigned i = 0; i < lines; ++i) h[size_t(order[i]) * 32] = order[(i + 1) % lines];
    CHECK(cudaMemcpy(next, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    const int n = 4096;
    if (mib == 0)
      chase<true><<<1, 1>>>(next, cyc, out, n);
    else
      chase<false><<<1, 1>>>(next, cyc, out, n);
    long long c;
    CHECK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
    std::printf("param chase_%uMiB %.1f cycles/load\n", mib, double(c) / n);
  }
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
  if (argc > 1 && std::string(argv[1]) == "batch") {
    const float empty = median_us([] { empty_kernel<<<132, 256>>>(); });
    batch_rows<0, 2>(s, empty);
    batch_rows<0, 4>(s, empty);
    batch_rows<0, 8>(s, empty);
    batch_rows<0, 16>(s, empty);
    batch_rows<2, 4>(s, empty);
    batch_rows<2, 8>(s, empty);
    batch_rows<2, 16>(s, empty);
    batch_row<2, 8, 8>(s, 64, empty);
    batch_row<2, 16, 16>(s, 64, empty);
    batch_row<2, 8, 8>(s, 32, empty);
    unsigned* next;
    CHECK(cudaMalloc(&next, size_t(64) << 20));
    chase_rows(next, s.cyc, reinterpret_cast<unsigned*>(out));
    CHECK(cudaGetLastError());
    return 0;
  }
  rows<0>(s);
  rows<1>(s);
  rows<2>(s);
  rows<3>(s);
  CHECK(cudaGetLastError());
  return 0;
}
