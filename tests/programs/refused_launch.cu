// Launches the GPU refuses at the call (cudaErrorInvalidValue), as PolyBench's
// lu.cu makes: its grid of ceil((N - (k + 1)) / 256) blocks has none at
// k = N - 1. The program ignores the codes; `smemlab check` reports each as an
// API error of kind `launch`, as compute-sanitizer's memcheck does ("Program hit
// cudaErrorInvalidValue ... on CUDA API call to cudaLaunchKernel").
#include <cstdio>

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

int main() {
  const int n = 256;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  for (int k = n - 2; k < n; ++k) {  // the last step's grid has no blocks
    dim3 grid((n - (k + 1) + 255) / 256);
    scale<<<grid, 256>>>(x, n - (k + 1));
    std::printf("step %d, grid %u: %s\n", k, grid.x, cudaGetErrorString(cudaGetLastError()));
  }
  scale<<<1, 2048>>>(x, n);  // more threads than a block has
  std::printf("2048 threads: %s\n", cudaGetErrorString(cudaGetLastError()));
  cudaDeviceSynchronize();
  cudaFree(x);
  return 0;
}
