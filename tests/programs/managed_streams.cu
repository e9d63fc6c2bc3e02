// Managed memory the host touches directly, streams, events and a host
// callback, in issue order.
#include <cstdio>

__global__ void scale(float* x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}

int main() {
  const int n = 512;
  float* x;
  if (cudaMallocManaged(&x, n * sizeof(float)) != cudaSuccess) {
    std::printf("FAIL: cudaMallocManaged\n");
    return 1;
  }
  for (int i = 0; i < n; ++i) x[i] = i;
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEvent_t start, stop, mid;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventCreate(&mid);
  cudaEventRecord(start, s1);
  scale<<<2, 256, 0, s1>>>(x, 2.0f, n);
  cudaEventRecord(mid, s1);
  cudaStreamWaitEvent(s2, mid, 0);
  scale<<<2, 256, 0, s2>>>(x, 3.0f, n);
  cudaEventRecord(stop, s2);
  cudaEventSynchronize(stop);
  float ms = -1;
  if (cudaEventElapsedTime(&ms, start, stop) != cudaSuccess || ms < 0) {
    std::printf("FAIL: cudaEventElapsedTime\n");
    return 1;
  }
  float* pinned;
  cudaMallocHost(&pinned, n * sizeof(float));
  cudaMemcpyAsync(pinned, x, n * sizeof(float), cudaMemcpyDefault, s2);
  cudaStreamSynchronize(s2);
  for (int i = 0; i < n; ++i)
    if (x[i] != 6.0f * i || pinned[i] != 6.0f * i) {
      std::printf("FAIL: x[%d] = %g, pinned %g, expected %g\n", i, x[i], pinned[i], 6.0f * i);
      return 1;
    }
  cudaFreeHost(pinned);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaEventDestroy(mid);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(x);
  std::printf("PASS managed_streams\n");
  return 0;
}
