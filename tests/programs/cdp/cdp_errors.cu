// Dynamic parallelism (CDP2): the errors a device-side launch returns to
// the launching thread (cudaGetLastError on the device), as the H100
// returned them (tests/data/h100_cdp.txt): nesting deeper than the device
// allows, a child block too large, a stream created without
// cudaStreamNonBlocking, and the pending-launch limit
// (cudaLimitDevRuntimePendingLaunchCount) set low by the host.
#include <cstdio>

constexpr int kDive = 30, kBurst = 12;

__global__ void dive(int depth, int* codes) {
  if (depth >= kDive) return;
  dive<<<1, 1>>>(depth + 1, codes);
  codes[depth] = cudaGetLastError();
}

__global__ void leaf(int* sink) { atomicAdd(sink, 1); }

__global__ void misuse(int* codes, int* sink) {
  leaf<<<1, 2048>>>(sink);  // 2048 threads per block: more than 1024
  codes[0] = cudaGetLastError();
  codes[1] = cudaGetLastError();  // reading it cleared it
  cudaStream_t s;
  codes[2] = cudaStreamCreateWithFlags(&s, cudaStreamDefault);
  codes[3] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (codes[3] == cudaSuccess) codes[4] = cudaStreamDestroy(s);
  leaf<<<0, 1>>>(sink);  // an empty grid
  codes[5] = cudaPeekAtLastError();
  codes[6] = cudaGetLastError();
}

__global__ void burst(int* codes, int* sink) {
  for (int i = 0; i < kBurst; ++i) {
    leaf<<<1, 1>>>(sink);
    codes[i] = cudaGetLastError();
  }
}

int main() {
  int *codes = nullptr, *sink = nullptr;
  cudaMalloc(&codes, sizeof(int) * 64);
  cudaMalloc(&sink, sizeof(int));
  int h[64];
  auto show = [&](const char* what, int n) {
    cudaMemcpy(h, codes, sizeof(int) * n, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i)
      printf("%s[%d]: %s\n", what, i, cudaGetErrorName(static_cast<cudaError_t>(h[i])));
  };

  cudaMemset(codes, 0xff, sizeof(int) * 64);
  dive<<<1, 1>>>(0, codes);
  printf("dive: launch %s, sync %s\n", cudaGetErrorName(cudaGetLastError()),
         cudaGetErrorName(cudaDeviceSynchronize()));
  cudaMemcpy(h, codes, sizeof(int) * kDive, cudaMemcpyDeviceToHost);
  int first = -1;
  for (int i = 0; i < kDive && first < 0; ++i)
    if (h[i] != cudaSuccess) first = i;
  printf("dive: launches from depth 0..%d succeeded; from depth %d: %s\n", first - 1, first,
         first < 0 ? "-" : cudaGetErrorName(static_cast<cudaError_t>(h[first])));

  cudaMemset(codes, 0xff, sizeof(int) * 64);
  misuse<<<1, 1>>>(codes, sink);
  printf("misuse: sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  show("misuse", 7);

  size_t pending = 0;
  cudaDeviceGetLimit(&pending, cudaLimitDevRuntimePendingLaunchCount);
  printf("pending launch limit: %zu\n", pending);
  printf("set limit 4: %s\n",
         cudaGetErrorName(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4)));
  cudaMemset(codes, 0xff, sizeof(int) * 64);
  cudaMemset(sink, 0, sizeof(int));
  burst<<<1, 1>>>(codes, sink);
  printf("burst: sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  show("burst", kBurst);
  int ran = 0;
  cudaMemcpy(&ran, sink, sizeof ran, cudaMemcpyDeviceToHost);
  printf("burst: %d children ran\n", ran);
  cudaFree(codes);
  cudaFree(sink);
  printf("DONE cdp_errors\n");
  return 0;
}
