// More than 48 KiB of dynamic shared memory after cudaFuncSetAttribute
// (refused without it, as on a GPU), plus an occupancy query.
#include <cstdio>

__global__ void reverse_big(const int* in, int* out, int n) {
  extern __shared__ int tile[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) tile[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = tile[n - 1 - i];
}

int main() {
  const int n = 24 * 1024;  // 96 KiB of ints
  const size_t bytes = n * sizeof(int);
  int *in, *out;
  cudaMallocManaged(&in, bytes);
  cudaMallocManaged(&out, bytes);
  for (int i = 0; i < n; ++i) in[i] = i * 7;
  reverse_big<<<1, 256, bytes>>>(in, out, n);
  if (cudaGetLastError() == cudaSuccess) {
    std::printf("FAIL: a 96 KiB launch without cudaFuncSetAttribute was accepted\n");
    return 1;
  }
  if (cudaFuncSetAttribute(reverse_big, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) !=
      cudaSuccess) {
    std::printf("FAIL: cudaFuncSetAttribute\n");
    return 1;
  }
  reverse_big<<<1, 256, bytes>>>(in, out, n);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("FAIL: launch\n");
    return 1;
  }
  for (int i = 0; i < n; ++i)
    if (out[i] != (n - 1 - i) * 7) {
      std::printf("FAIL: out[%d] = %d\n", i, out[i]);
      return 1;
    }
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_big, 256, bytes);
  if (blocks != 2) {  // 228 KiB per SM / (96 KiB + 1 KiB reserved)
    std::printf("FAIL: occupancy %d blocks per SM, expected 2\n", blocks);
    return 1;
  }
  cudaFree(in);
  cudaFree(out);
  std::printf("PASS big_shared\n");
  return 0;
}
