// Separate compilation (-rdc=true), unit 1 of 2: a kernel calling a device
// function and reading device variables defined in the other unit
// (rdc_lib.cu), each unit with a static function and a printf of its own
// under the same names, and an inline function both units define (a weak
// symbol). Checked against the same arithmetic on the CPU.
#include <cstdio>

#include "rdc_shared.h"

extern __device__ int g_offset;          // defined in rdc_lib.cu
extern __device__ int g_table[4];        // defined in rdc_lib.cu, initialized there
extern __device__ int lib_scale(int x);  // defined in rdc_lib.cu
__device__ int g_calls;                  // defined here, incremented by rdc_lib.cu

static __device__ __noinline__ int local_twist(int x) { return x ^ 5; }  // rdc_lib.cu has its own

__global__ void combine(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = lib_scale(i) + g_offset + g_table[i % 4] + local_twist(i) + shared_inline(i);
  if (i == 0) printf("main unit: first element %d\n", out[0]);
}

__global__ void count_calls(int* out) { *out = g_calls; }

int main() {
  const int n = 100;
  int* d = nullptr;
  int* calls = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  cudaMalloc(&calls, sizeof(int));
  int offset = 7;
  cudaMemcpyToSymbol(g_offset, &offset, sizeof offset);  // host writes the other unit's variable
  combine<<<4, 32>>>(d, n);
  count_calls<<<1, 1>>>(calls);
  int h[n], hc = 0;
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(&hc, calls, sizeof hc, cudaMemcpyDeviceToHost);
  cudaError_t e = cudaDeviceSynchronize();
  cudaFree(d);
  cudaFree(calls);
  int failed = 0;
  const int table[4] = {10, 20, 30, 40};
  for (int i = 0; i < n; ++i) {
    int want = (3 * i + 1 + (i ^ 9)) + offset + table[i % 4] + (i ^ 5) + host_inline(i);
    if (h[i] != want && failed++ < 5) printf("out[%d] = %d, expected %d\n", i, h[i], want);
  }
  if (hc != n && failed++ < 5) printf("g_calls = %d, expected %d\n", hc, n);
  printf("%s rdc_units (%s, %d failed)\n", failed || e ? "FAIL" : "PASS", cudaGetErrorName(e),
         failed);
  return failed || e ? 1 : 0;
}
