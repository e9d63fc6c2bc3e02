// Runs one of pranjalssh/fast.cu's Hopper GEMM kernels (examples/matmul/
// matmul_N.cuh, unmodified, included from a checkout named by -I) at a size
// the emulator finishes, and checks it against a CPU product.
//
// Why a main of our own: fast.cu's matmul.cu runs all twelve kernels at
// 8192^3 against cuBLAS, far beyond what an emulated run (or a ~10 minute
// GPU call under ncu) allows, and fixes the size in its source. Its kernels'
// own entry points, runKernelN(M, N, K, A, B, C, DB), take the size as
// arguments, so this file calls them with small sizes instead of editing
// anything of theirs. FASTCU_KERNEL (1..12) picks the header at build time
// (each header defines the same helper names in its own namespace, so one
// per binary keeps the build small).
//
// The check is exact: A and B hold values in {-1, 0, 1}, so every product
// sum is an integer of magnitude <= K, which bf16 and the fp32 accumulator
// hold exactly while K <= 256. The layout is fast.cu's (matmul.cu's cuBLAS
// call): A is M x K row-major, B is N x K row-major (K contiguous), C is
// column-major M x N: C[n*M + m] = sum_k A[m*K + k] * B[n*K + k].
//
// Usage: fastcu_gemm_N [M N K]   (defaults: the smallest size a block of the
// kernel covers, see main). Exit 0 and "PASS" when every element matches.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda/barrier>
#include <vector>

// The prelude fast.cu's headers expect from matmul.cu.
typedef __nv_bfloat16 bf16;
#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))
static void cudaCheck(cudaError_t error, const char* file, int line) {
  if (error != cudaSuccess) {
    printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
    exit(1);
  }
}
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))

#define FASTCU_STR2(x) #x
#define FASTCU_STR(x) FASTCU_STR2(x)
#define FASTCU_CAT2(a, b) a##b
#define FASTCU_CAT(a, b) FASTCU_CAT2(a, b)
// A space around a slash would enter the stringized path (clang-format adds them).
// clang-format off
#include FASTCU_STR(examples/matmul/FASTCU_CAT(matmul_, FASTCU_KERNEL).cuh)
// clang-format on

// runKernel1 and runKernel2 take no DB argument.
template <typename F>
static auto call_kernel(F f, int M, int N, int K, bf16* A, bf16* B, bf16* C, int*)
    -> decltype(f(M, N, K, A, B, C)) {
  return f(M, N, K, A, B, C);
}
template <typename F>
static auto call_kernel(F f, int M, int N, int K, bf16* A, bf16* B, bf16* C, int* DB)
    -> decltype(f(M, N, K, A, B, C, DB)) {
  return f(M, N, K, A, B, C, DB);
}

int main(int argc, char** argv) {
  int M = 128, N = 256, K = 256;
  if (argc == 4) {
    M = atoi(argv[1]);
    N = atoi(argv[2]);
    K = atoi(argv[3]);
  } else if (argc != 1) {
    fprintf(stderr, "usage: %s [M N K]\n", argv[0]);
    return 2;
  }
  if (M <= 0 || N <= 0 || K <= 0 || K > 256) {
    fprintf(stderr, "fastcu_gemm: M, N, K must be positive and K <= 256 (exact check)\n");
    return 2;
  }
  std::vector<bf16> A(size_t(M) * K), B(size_t(N) * K), C(size_t(M) * N);
  std::vector<float> fa(A.size()), fb(B.size());
  unsigned s = 12345;
  auto next = [&] { return int((s = s * 1103515245u + 12345u) >> 16) % 3 - 1; };
  for (size_t i = 0; i < A.size(); ++i) A[i] = __float2bfloat16(fa[i] = float(next()));
  for (size_t i = 0; i < B.size(); ++i) B[i] = __float2bfloat16(fb[i] = float(next()));
  bf16 *dA, *dB, *dC;
  cudaCheck(cudaMalloc(&dA, A.size() * sizeof(bf16)));
  cudaCheck(cudaMalloc(&dB, B.size() * sizeof(bf16)));
  cudaCheck(cudaMalloc(&dC, C.size() * sizeof(bf16)));
  cudaCheck(cudaMemcpy(dA, A.data(), A.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  cudaCheck(cudaMemcpy(dB, B.data(), B.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  cudaCheck(cudaMemset(dC, 0xff, C.size() * sizeof(bf16)));  // NaNs: unwritten shows
  call_kernel(FASTCU_CAT(runKernel, FASTCU_KERNEL), M, N, K, dA, dB, dC, nullptr);
  cudaCheck(cudaGetLastError());
  cudaCheck(cudaDeviceSynchronize());
  cudaCheck(cudaMemcpy(C.data(), dC, C.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  cudaCheck(cudaFree(dA));
  cudaCheck(cudaFree(dB));
  cudaCheck(cudaFree(dC));
  long bad = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float ref = 0;
      for (int k = 0; k < K; ++k) ref += fa[size_t(m) * K + k] * fb[size_t(n) * K + k];
      float got = __bfloat162float(C[size_t(n) * M + m]);
      if (!(got == ref) && bad++ < 5)
        printf("mismatch at m=%d n=%d: got %g, expected %g\n", m, n, got, ref);
    }
  printf("fast.cu kernel %d, M=%d N=%d K=%d: %s (%ld of %ld wrong)\n", FASTCU_KERNEL, M, N, K,
         bad ? "FAIL" : "PASS", bad, long(M) * N);
  return bad ? 1 : 0;
}
