// A sequence of kernels, each reading the previous one's output.
#include <cstdio>
#include <vector>

__global__ void fill(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = i;
}
__global__ void square(const int* x, int* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}
__global__ void prefix_block(const int* y, int* z, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? y[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n) z[i] = s[threadIdx.x];
}

int main() {
  const int n = 1000;
  int *x, *y, *z;
  cudaMalloc(&x, n * sizeof(int));
  cudaMalloc(&y, n * sizeof(int));
  cudaMalloc(&z, n * sizeof(int));
  int blocks = (n + 255) / 256;
  fill<<<blocks, 256>>>(x, n);
  square<<<blocks, 256>>>(x, y, n);
  prefix_block<<<blocks, 256>>>(y, z, n);
  std::vector<int> h(n);
  cudaMemcpy(h.data(), z, n * sizeof(int), cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b) {
    long long sum = 0;
    for (int i = b * 256; i < n && i < (b + 1) * 256; ++i) {
      sum += static_cast<long long>(i) * i;
      if (h[i] != sum) {
        std::printf("FAIL: z[%d] = %d, expected %lld\n", i, h[i], sum);
        return 1;
      }
    }
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  std::printf("PASS kernel_chain\n");
  return 0;
}
