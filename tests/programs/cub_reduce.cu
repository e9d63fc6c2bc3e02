// cub::DeviceReduce::Sum (a header-only library kernel), verified.
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <vector>

int main() {
  const int n = 10000;
  std::vector<int> h(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) h[i] = (i * 37) % 101, want += h[i];
  int *in, *out;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  void* temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n);
  cudaMalloc(&temp, temp_bytes);
  cudaError_t e = cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n);
  int got = -1;
  cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess || got != want) {
    std::printf("FAIL: sum %d, expected %lld (%s)\n", got, want, cudaGetErrorString(e));
    return 1;
  }
  cudaFree(temp);
  cudaFree(in);
  cudaFree(out);
  std::printf("PASS cub_reduce\n");
  return 0;
}
