// Library calls with bad arguments (issue 29): each must come back with the
// library's documented status, and a range past its allocation, freed, or in
// memory the GPU cannot reach must be smemlab's memcheck finding naming the
// call (the call then fails instead of touching the memory), never a crash
// of this process. Prints one line per call; exit 0 when every status is the
// expected one. With an argument, only the status checks run (natively on a
// GPU the range cases would fault: scripts/gpu-libs runs it so).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cufft.h>
#include <curand.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int g_wrong = 0;
void expect(const char* what, int got, int want) {
  std::printf("%s %s: status %d (want %d)\n", got == want ? "OK" : "WRONG", what, got, want);
  g_wrong += got != want;
}

int main(int argc, char**) {
  const bool ranges = argc < 2;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 2;
  float one = 1, zero = 0, *a, *b, *c, *small;
  cudaMalloc(&a, 64 * 64 * 4), cudaMalloc(&b, 64 * 64 * 4), cudaMalloc(&c, 64 * 64 * 4);
  cudaMalloc(&small, 16 * 4);
  // Shapes cuBLAS refuses (CUBLAS_STATUS_INVALID_VALUE).
  expect("sgemm lda < m",
         cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, a, 32, b, 64, &zero, c, 64),
         CUBLAS_STATUS_INVALID_VALUE);
  expect("sgemm m < 0",
         cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 64, 64, &one, a, 64, b, 64, &zero, c, 64),
         CUBLAS_STATUS_INVALID_VALUE);
  // incx 0 is accepted by the GPU's cuBLAS 13 (measured), incy 0 is not documented so.
  expect("sgemv incx 0", cublasSgemv(h, CUBLAS_OP_N, 8, 8, &one, a, 8, b, 0, &zero, c, 1),
         CUBLAS_STATUS_SUCCESS);
  expect("sgemv incy 0", cublasSgemv(h, CUBLAS_OP_N, 8, 8, &one, a, 8, b, 1, &zero, c, 0),
         CUBLAS_STATUS_INVALID_VALUE);
  expect("sgemmStridedBatched batch < 0",
         cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, a, 8, 64, b, 8, 64,
                                   &zero, c, 8, 64, -1),
         CUBLAS_STATUS_INVALID_VALUE);
  expect("sgemm null handle",
         cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, a, 8, b, 8, &zero, c, 8),
         CUBLAS_STATUS_NOT_INITIALIZED);
  // Ranges past the allocation: C of 64 x 64 in a 16-float allocation.
  if (ranges)
    expect(
        "sgemm C past its allocation",
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, a, 64, b, 64, &zero, small, 64),
        CUBLAS_STATUS_EXECUTION_FAILED);
  if (ranges)
    expect("sgemmStridedBatched last problem past A",
           cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, a, 8, 4090, b, 8,
                                     0, &zero, c, 8, 0, 2),
           CUBLAS_STATUS_EXECUTION_FAILED);
  if (ranges)
    expect("saxpy y past its allocation", cublasSaxpy(h, 1000, &one, a, 1, small, 1),
           CUBLAS_STATUS_EXECUTION_FAILED);
  if (ranges)
    expect("GemmEx C past its allocation",
           cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, a, CUDA_R_32F, 64, b,
                        CUDA_R_32F, 64, &zero, small, CUDA_R_32F, 64, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT),
           CUBLAS_STATUS_EXECUTION_FAILED);
  if (ranges) {  // cublasLtMatmul: D of 64 x 64 in the 16-float allocation
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t l64;
    cublasLtCreate(&lt);
    cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasLtMatrixLayoutCreate(&l64, CUDA_R_32F, 64, 64, 64);
    expect("cublasLtMatmul D past its allocation",
           cublasLtMatmul(lt, desc, &one, a, l64, b, l64, &zero, c, l64, small, l64, nullptr,
                          nullptr, 0, 0),
           CUBLAS_STATUS_EXECUTION_FAILED);
    cublasLtMatrixLayoutDestroy(l64);
    cublasLtMatmulDescDestroy(desc);
    cublasLtDestroy(lt);
  }
  // Pageable host memory is not device memory; freed memory is no memory.
  std::vector<float> host(64);
  if (ranges)
    expect("sscal on host memory", cublasSscal(h, 64, &one, host.data(), 1),
           CUBLAS_STATUS_EXECUTION_FAILED);
  float* freed;
  cudaMalloc(&freed, 256 * 4);
  cudaFree(freed);
  if (ranges)
    expect("scopy into freed memory", cublasScopy(h, 64, a, 1, freed, 1),
           CUBLAS_STATUS_EXECUTION_FAILED);
  // cuFFT: sizes and plans it refuses, and an output too small for the plan.
  cufftHandle plan;
  expect("cufftPlan1d size 0", cufftPlan1d(&plan, 0, CUFFT_C2C, 1), CUFFT_INVALID_SIZE);
  expect("cufftPlan1d batch 0", cufftPlan1d(&plan, 64, CUFFT_C2C, 0), CUFFT_INVALID_SIZE);
  expect("cufftExecC2C no plan",
         cufftExecC2C(12345, (cufftComplex*)a, (cufftComplex*)b, CUFFT_FORWARD),
         CUFFT_INVALID_PLAN);
  if (cufftPlan1d(&plan, 256, CUFFT_C2C, 4) != CUFFT_SUCCESS) return 2;
  expect("cufftExecC2C bad direction", cufftExecC2C(plan, (cufftComplex*)a, (cufftComplex*)b, 7),
         CUFFT_INVALID_VALUE);
  // The GPU's cuFFT 12 returned CUFFT_SUCCESS here (measured); smemlab refuses
  // the mismatch rather than guess what that transform computes.
  expect("cufftExecR2C on a C2C plan", cufftExecR2C(plan, a, (cufftComplex*)b), CUFFT_INVALID_TYPE);
  if (ranges)
    expect("cufftExecC2C output past its allocation",
           cufftExecC2C(plan, (cufftComplex*)a, (cufftComplex*)small, CUFFT_FORWARD),
           CUFFT_EXEC_FAILED);
  cufftDestroy(plan);
  // cuRAND: an output past its allocation; an odd count of normals.
  curandGenerator_t g;
  if (curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS) return 2;
  if (ranges)
    expect("curandGenerate past its allocation", curandGenerate(g, (unsigned*)small, 4096),
           CURAND_STATUS_LAUNCH_FAILURE);
  // Odd counts of normals: Philox takes them (measured), XORWOW does not (documented).
  expect("curandGenerateNormal odd count, Philox", curandGenerateNormal(g, a, 7, 0.f, 1.f),
         CURAND_STATUS_SUCCESS);
  curandDestroyGenerator(g);
  if (curandCreateGenerator(&g, CURAND_RNG_PSEUDO_XORWOW) != CURAND_STATUS_SUCCESS) return 2;
  expect("curandGenerateNormal odd count, XORWOW", curandGenerateNormal(g, a, 7, 0.f, 1.f),
         CURAND_STATUS_LENGTH_NOT_MULTIPLE);
  curandDestroyGenerator(g);
  cudaDeviceSynchronize();
  cublasDestroy(h);
  cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(small);
  std::printf("DONE bad_args (%d wrong)\n", g_wrong);
  return g_wrong ? 1 : 0;
}
