// A program whose kernel reverses an array through shared memory without a
// barrier between the stores and the loads (a race between warps): check
// and `analyze --check` report it, plain `analyze` only counts.
#include <cstdio>

__global__ void reverse_no_sync(int* d, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = d[t];
  d[t] = s[n - t - 1];
}

int main() {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int* d = nullptr;
  if (cudaMalloc(&d, sizeof h) != cudaSuccess) return 1;
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  reverse_no_sync<<<1, n>>>(d, n);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  std::printf("DONE shared_race %s\n", cudaGetLastError() == cudaSuccess ? "ok" : "error");
  return 0;
}
