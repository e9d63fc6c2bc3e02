// The PTX video instructions (SIMD vadd2 ... vset4 and scalar vadd ... vmad):
// every form of video_forms.inc on the same 64 operand triples, one line per
// form: the form and its 64 results in hex, the SIMD forms (one kernel) then
// the scalar ones (another). Natively on an H100 (scripts/conform/gpu) the
// output is tests/data/h100_video.txt; under smemlab (programs.video_simd,
// `video_simd simd`: the SIMD kernel only) its lines must be the same.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kInputs = 64;

constexpr int kForms = 0
#define S(i, s) +1
#define V(i, s) +1
#include "video_forms.inc"
#undef S
#undef V
    ;
constexpr int kSimdForms = 0
#define S(i, s) +1
#define V(i, s)
#include "video_forms.inc"
#undef S
#undef V
    ;

#define FORM(i, s)                                      \
  case i:                                               \
    asm volatile(s : "=r"(r) : "r"(x), "r"(y), "r"(z)); \
    break;
// Forms [first, first + count) of one kind, thread t: form first + t / kInputs.
__global__ void run_simd(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kSimdForms * kInputs) return;
  int form = t / kInputs, i = t % kInputs;
  uint32_t x = a[i], y = b[i], z = c[i], r = 0;
  switch (form) {
#define S FORM
#define V(i, s)
#include "video_forms.inc"
#undef S
#undef V
  }
  d[t] = r;
}
__global__ void run_scalar(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) {
  int t = blockIdx.x * blockDim.x + threadIdx.x + kSimdForms * kInputs;
  if (t >= kForms * kInputs) return;
  int form = t / kInputs, i = t % kInputs;
  uint32_t x = a[i], y = b[i], z = c[i], r = 0;
  switch (form) {
#define S(i, s)
#define V FORM
#include "video_forms.inc"
#undef S
#undef V
  }
  d[t] = r;
}

int main(int argc, char** argv) {
  bool simd_only = argc > 1 && std::strcmp(argv[1], "simd") == 0;
  // Operands: edge values of bytes and half-words, then pseudo-random words.
  std::vector<uint32_t> a(kInputs), b(kInputs), c(kInputs);
  const uint32_t edge[] = {0x00000000u, 0xffffffffu, 0x7fff8000u, 0x80007fffu,
                           0x7f807f80u, 0x807f807fu, 0x01ff01ffu, 0xff01ff01u,
                           0x00010001u, 0x7fffffffu, 0x80000000u, 0x12345678u,
                           0x0000001fu, 0x00000020u, 0x00000021u, 0xffffffe0u};
  uint64_t s = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 32);
  };
  for (int i = 0; i < kInputs; ++i) {
    a[i] = i < 16 ? edge[i] : next();
    b[i] = i < 16 ? edge[(i * 7 + 3) % 16] : next();
    c[i] = i < 16 ? edge[(i * 5 + 9) % 16] : next();
  }
  // Small shift counts in some lanes, so vshl/vshr see both in- and out-of-range.
  for (int i = 16; i < 32; ++i) b[i] &= 0x3fu;
  uint32_t *da, *db, *dc, *dd;
  size_t bytes = kInputs * sizeof(uint32_t);
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMalloc(&dd, bytes * kForms);
  cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c.data(), bytes, cudaMemcpyHostToDevice);
  int threads = kForms * kInputs, simd = kSimdForms * kInputs;
  run_simd<<<(simd + 255) / 256, 256>>>(da, db, dc, dd);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("FAIL video_simd (SIMD forms): %s\n", cudaGetErrorName(e));
    return 1;
  }
  if (!simd_only) {
    run_scalar<<<(threads - simd + 255) / 256, 256>>>(da, db, dc, dd);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::printf("FAIL video_simd (scalar forms): %s\n", cudaGetErrorName(e));
      return 1;
    }
  }
  std::vector<uint32_t> d(static_cast<size_t>(threads));
  cudaMemcpy(d.data(), dd, bytes * kForms, cudaMemcpyDeviceToHost);
  auto print_row = [&](int form, const char* name) {
    std::printf("%s", name);
    for (int i = 0; i < kInputs; ++i)
      std::printf(" %08x", d[static_cast<size_t>(form) * kInputs + i]);
    std::printf("\n");
  };
#define S(i, s) print_row(i, s);
#define V(i, s) \
  if (!simd_only) print_row(i, s);
#include "video_forms.inc"
#undef S
#undef V
  if (!simd_only)
    std::printf("PASS video_simd (%d forms x %d operands)\n", kForms, kInputs);
  else
    std::printf("PASS video_simd (%d SIMD forms x %d operands)\n", kSimdForms, kInputs);
  return 0;
}
