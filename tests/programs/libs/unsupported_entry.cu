// Calls a cuBLAS entry point smemlab's libcublas does not implement (the
// 64-bit-integer GEMM): the call must return CUBLAS_STATUS_NOT_SUPPORTED and
// smemlab must name the entry point, not skip it silently.
#include <cublas_v2.h>

#include <cstdio>

int main() {
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  float *a, *b, *c, one = 1, zero = 0;
  cudaMalloc(&a, 64 * 4), cudaMalloc(&b, 64 * 4), cudaMalloc(&c, 64 * 4);
  cublasStatus_t s =
      cublasSgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, a, 8, b, 8, &zero, c, 8);
  std::printf("DONE unsupported_entry cublasSgemm_64 returned %d\n", int(s));
  cublasDestroy(h);
  cudaFree(a), cudaFree(b), cudaFree(c);
  return s == CUBLAS_STATUS_NOT_SUPPORTED ? 0 : 1;
}
