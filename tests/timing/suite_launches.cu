// The time model's validation program (issue 31, docs/validation.md): the
// suite's kernels (kernels/*.cu, linked beside this file) at sizes that
// take 10-500 us on the H100 but emulate in seconds. Each configuration
// is launched once, in a fixed order, so that `smemlab analyze --json --
// suite_launches` numbers its launches 0, 1, ... as the table below.
// With SUITE_REPEAT=N (on the GPU) each configuration is instead timed:
// 2 warm-up launches, then N launches each between two CUDA events; the
// median is printed as "time <index> <name> <microseconds>".
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#define CHECK(x)                                                                         \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

using TransposeFn = void (*)(const float*, float*, int, int);
using MatmulFn = void (*)(const float*, const float*, float*, int, int, int);
using ReduceFn = void (*)(const float*, float*, int);
using FirFn = void (*)(const float*, float*, int);
extern "C" {
#define T(name) __global__ void name(const float*, float*, int, int);
T(transposeCopy) T(transposeCopyShared) T(transposeNaive) T(transposeCoalesced)
T(transposePadded) T(transposeSwizzled) T(transposePaddedRows4) T(transposePaddedRows16)
T(transposeSwizzledRows4) T(transposeVec4) T(transposeVec4Tile64) T(transposeVec4Tile64R32)
T(transposeVec4Tile64R8)
#undef T
#define M(name) __global__ void name(const float*, const float*, float*, int, int, int);
M(matmul_naive) M(matmul_tiled16) M(matmul_tiled32) M(sgemm_128x128x8_vec)
#undef M
#define R(name) __global__ void name(const float*, float*, int);
R(reduce_interleaved_divergent) R(reduce_interleaved_strided) R(reduce_sequential)
R(reduce_first_add) R(reduce_unrolled_warp) R(reduce_shuffle)
R(fir_one_per_thread) R(fir_two_per_thread) R(fir_best)
#undef R
#define S(name, type) __global__ void name(type*);
S(setRowReadRow, int) S(setColReadCol, int) S(setRowReadCol, int) S(setRowReadColDyn, int)
S(setRowReadColPad, int) S(setRowReadColPad2, int) S(setRowReadColDynPad, int)
S(setRowReadColRect, int) S(setRowReadColRectPad, int) S(setRowReadColRectDyn, int)
S(setRowReadColRectDynPad, int) S(setRowReadRow8, long long) S(setRowReadCol8, long long)
S(setRowReadColPad8, long long)
#undef S
__global__ void reverseBlocksShared(const int*, int*, long long);
__global__ void reverseVec4(const int*, int*, long long);
__global__ void smemChunkReverse(const float*, float*, long long, int);
__global__ void strideRead(const unsigned*, unsigned*, long long, int);
__global__ void divergenceMod3(unsigned*, int, int);
__global__ void divergenceByWarp(unsigned*, int, int);
}

struct Config {
  std::string name;
  std::function<void()> launch;
};

float* random_floats(size_t n, unsigned seed) {
  std::vector<float> h(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (float& x : h) x = d(rng);
  float* p;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  CHECK(cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  return p;
}

template <class T>
T* device_buffer(size_t n) {
  T* p;
  CHECK(cudaMalloc(&p, n * sizeof(T)));
  CHECK(cudaMemset(p, 0xff, n * sizeof(T)));  // poison, never zeros
  return p;
}

int main() {
  std::vector<Config> c;
  // Transpose, 4096 x 4096 floats (64 MiB in, 64 MiB out).
  const int n = 4096;
  float* tin = random_floats(size_t(n) * n, 1);
  float* tout = device_buffer<float>(size_t(n) * n);
  struct Tr {
    const char* name;
    TransposeFn fn;
    int bx, by, tile;
  };
  const Tr tr[] = {{"transpose/copy", transposeCopy, 32, 8, 32},
                   {"transpose/copy-shared", transposeCopyShared, 32, 8, 32},
                   {"transpose/naive", transposeNaive, 32, 8, 32},
                   {"transpose/coalesced", transposeCoalesced, 32, 8, 32},
                   {"transpose/padded", transposePadded, 32, 8, 32},
                   {"transpose/swizzled", transposeSwizzled, 32, 8, 32},
                   {"transpose/padded-r4", transposePaddedRows4, 32, 4, 32},
                   {"transpose/padded-r16", transposePaddedRows16, 32, 16, 32},
                   {"transpose/swizzled-r4", transposeSwizzledRows4, 32, 4, 32},
                   {"transpose/vec4", transposeVec4, 8, 32, 32},
                   {"transpose/vec4-t64", transposeVec4Tile64, 16, 16, 64},
                   {"transpose/vec4-t64r32", transposeVec4Tile64R32, 16, 32, 64},
                   {"transpose/vec4-t64r8", transposeVec4Tile64R8, 16, 8, 64}};
  for (const Tr& t : tr)
    c.push_back({t.name, [=] {
                   dim3 grid(n / t.tile, n / t.tile);
                   t.fn<<<grid, dim3(t.bx, t.by)>>>(tin, tout, n, n);
                 }});

  // Tiles: 132 x 64 blocks each writing its own tile's values.
  const int tile_blocks = 132 * 64;
  int* tiles4 = device_buffer<int>(size_t(tile_blocks) * 1024);
  long long* tiles8 = device_buffer<long long>(size_t(tile_blocks) * 1024);
  struct Ti {
    const char* name;
    const void* fn;
    bool rect, wide;
    int dyn_pad;  // -1: static tile
  };
  const Ti ti[] = {
      {"tiles/setRowReadRow", (const void*)setRowReadRow, false, false, -1},
      {"tiles/setColReadCol", (const void*)setColReadCol, false, false, -1},
      {"tiles/setRowReadCol", (const void*)setRowReadCol, false, false, -1},
      {"tiles/setRowReadColDyn", (const void*)setRowReadColDyn, false, false, 0},
      {"tiles/setRowReadColPad", (const void*)setRowReadColPad, false, false, -1},
      {"tiles/setRowReadColPad2", (const void*)setRowReadColPad2, false, false, -1},
      {"tiles/setRowReadColDynPad", (const void*)setRowReadColDynPad, false, false, 1},
      {"tiles/setRowReadColRect", (const void*)setRowReadColRect, true, false, -1},
      {"tiles/setRowReadColRectPad", (const void*)setRowReadColRectPad, true, false, -1},
      {"tiles/setRowReadColRectDyn", (const void*)setRowReadColRectDyn, true, false, 0},
      {"tiles/setRowReadColRectDynPad", (const void*)setRowReadColRectDynPad, true, false, 2},
      {"tiles/setRowReadRow8", (const void*)setRowReadRow8, false, true, -1},
      {"tiles/setRowReadCol8", (const void*)setRowReadCol8, false, true, -1},
      {"tiles/setRowReadColPad8", (const void*)setRowReadColPad8, false, true, -1}};
  for (const Ti& t : ti)
    c.push_back({t.name, [=] {
                   dim3 block(32, t.rect ? 16 : 32);
                   size_t elem = t.wide ? 8 : 4;
                   size_t smem = t.dyn_pad < 0 ? 0 : block.y * (block.x + t.dyn_pad) * elem;
                   void* p = t.wide ? (void*)tiles8 : (void*)tiles4;
                   void* args[] = {&p};
                   (void)cudaLaunchKernel(t.fn, dim3(tile_blocks), block, args, smem, nullptr);
                 }});

  // Matmul, 1024^3.
  const int mn = 1024;
  float* A = random_floats(size_t(mn) * mn, 2);
  float* B = random_floats(size_t(mn) * mn, 3);
  float* C = device_buffer<float>(size_t(mn) * mn);
  c.push_back({"matmul/naive", [=] { matmul_naive<<<dim3(mn / 32, mn / 8), dim3(32, 8)>>>(A, B, C, mn, mn, mn); }});
  c.push_back({"matmul/tiled16", [=] { matmul_tiled16<<<dim3(mn / 16, mn / 16), dim3(16, 16)>>>(A, B, C, mn, mn, mn); }});
  c.push_back({"matmul/tiled32", [=] { matmul_tiled32<<<dim3(mn / 32, mn / 32), dim3(32, 32)>>>(A, B, C, mn, mn, mn); }});
  c.push_back({"matmul/sgemm-128x128x8", [=] { sgemm_128x128x8_vec<<<dim3(mn / 128, mn / 128), dim3(256)>>>(A, B, C, mn, mn, mn); }});

  // Reduction: the first pass over 2^24 floats; FIR over 2^24 samples.
  const int rn = 1 << 24;
  float* rin = random_floats(rn, 4);
  float* rout = device_buffer<float>(rn);
  struct Re {
    const char* name;
    ReduceFn fn;
    int per_thread;
  };
  const Re re[] = {{"reduction/interleaved-divergent", reduce_interleaved_divergent, 1},
                   {"reduction/interleaved-strided", reduce_interleaved_strided, 1},
                   {"reduction/sequential", reduce_sequential, 1},
                   {"reduction/first-add", reduce_first_add, 2},
                   {"reduction/unrolled-warp", reduce_unrolled_warp, 2},
                   {"reduction/shuffle", reduce_shuffle, 2},
                   {"filter/one-per-thread", fir_one_per_thread, 1},
                   {"filter/two-per-thread", fir_two_per_thread, 2},
                   {"filter/best", fir_best, 4}};
  for (const Re& r : re)
    c.push_back({r.name, [=] { r.fn<<<rn / (256 * r.per_thread), 256>>>(rin, rout, rn); }});

  // Reverse (2^24 ints), the shared-chunk sweep (2^24 floats), demos.
  int* iin = reinterpret_cast<int*>(rin);
  int* iout = reinterpret_cast<int*>(rout);
  c.push_back({"reverse/blocks-shared", [=] { reverseBlocksShared<<<rn / (256 * 4), 256>>>(iin, iout, rn); }});
  c.push_back({"reverse/vec4", [=] { reverseVec4<<<132 * 8 * 4, 256>>>(iin, iout, rn); }});
  for (int kib : {1, 4, 16, 48}) {
    int floats = kib * 256;
    if (kib > 48) continue;
    c.push_back({"config/chunk-" + std::to_string(kib) + "KiB", [=] {
                   smemChunkReverse<<<132 * 8, 256, floats * 4>>>(rin, rout, rn, floats);
                 }});
  }
  unsigned* uin = reinterpret_cast<unsigned*>(rin);
  unsigned* uout = reinterpret_cast<unsigned*>(tout);
  for (int s : {1, 8, 32})
    c.push_back({"demos/stride-" + std::to_string(s), [=] {
                   strideRead<<<132 * 16, 256>>>(uin, uout, rn / s, s);
                 }});
  c.push_back({"demos/divergence-mod3", [=] { divergenceMod3<<<rn / 256 / 4, 256>>>(uout, rn / 4, 64); }});
  c.push_back({"demos/divergence-by-warp", [=] { divergenceByWarp<<<rn / 256 / 4, 256>>>(uout, rn / 4, 64); }});

  const char* rep = std::getenv("SUITE_REPEAT");
  int repeat = rep ? std::atoi(rep) : 0;
  if (repeat <= 0) {
    for (auto& k : c) {
      k.launch();
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        std::printf("error %s %s\n", k.name.c_str(), cudaGetErrorString(e));
    }
    CHECK(cudaDeviceSynchronize());
    std::printf("%zu launches\n", c.size());
    return 0;
  }
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (size_t i = 0; i < c.size(); ++i) {
    // A launch the GPU refuses (a configuration error) is reported and
    // skipped; the context stays usable. A fault while running is fatal.
    for (int w = 0; w < 2; ++w) c[i].launch();
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
      std::printf("error %zu %s %s\n", i, c[i].name.c_str(), cudaGetErrorString(e));
      continue;
    }
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int r = 0; r < repeat; ++r) {
      CHECK(cudaEventRecord(a));
      c[i].launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float t;
      CHECK(cudaEventElapsedTime(&t, a, b));
      ms.push_back(t);
    }
    CHECK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    std::printf("time %zu %s %.3f\n", i, c[i].name.c_str(), 1000.0 * ms[ms.size() / 2]);
  }
  return 0;
}
