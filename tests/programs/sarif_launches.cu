// Four launches for `check|analyze --sarif FILE -- APP` (tests/programs/
// check_program_sarif.py, analyze_program_sarif.py): a clean one, one with
// 32-way bank conflicts (no finding), one with a shared-memory race and one
// whose assert fails in one thread. The SARIF log holds one result per
// finding (and, for analyze, per hint), each naming its launch; the
// assert's ruleId is one of its rules.
#include <cassert>
#include <cstdio>

__global__ void scale(int* d, int k) { d[threadIdx.x] *= k; }

__global__ void reverse_no_sync(int* d, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = d[t];
  d[t] = s[n - t - 1];
}

__global__ void strided(int* d) {
  __shared__ int s[64 * 32];
  int t = threadIdx.x;
  s[t * 32] = d[t];  // every lane in bank 0
  __syncthreads();
  d[t] = s[t * 32];
}

__global__ void checked(const int* d, int limit) { assert(d[threadIdx.x] < limit); }

int main() {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int* d = nullptr;
  if (cudaMalloc(&d, sizeof h) != cudaSuccess) return 1;
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  scale<<<1, n>>>(d, 2);
  strided<<<1, n>>>(d);
  reverse_no_sync<<<1, n>>>(d, n);
  cudaDeviceSynchronize();
  checked<<<1, n>>>(d, 120);  // the values are 0, 2, ..., 126 in some order: asserts fail
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("after the assert: %s\n", cudaGetErrorName(e));
  return 0;
}
