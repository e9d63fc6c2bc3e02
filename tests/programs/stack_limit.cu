// cudaLimitStackSize reaches the kernel's call stack: a recursion deeper
// than the default 1 KiB stack holds runs once the program raises the limit,
// and its result equals the CPU's. Prints "ok PART" per part.
#include "conform_checks.h"

// The store after the recursive call keeps it from becoming a loop.
__host__ __device__ __noinline__ int chain(int n, volatile int* sink) {
  int local[8];
  for (int k = 0; k < 8; ++k) local[k] = n * 3 + k;
  if (n == 0) return 1;
  int r = chain(n - 1, sink);
  sink[n & 7] = r;
  return (r * 31 + local[(n + r) & 7]) & 0xffffff;
}

__global__ void deep(int* out, int n, int* sink) {
  out[threadIdx.x] = chain(n + threadIdx.x % 4, sink);
}

int main() {
  size_t before = 0, after = 0;
  CHECK(cudaDeviceGetLimit(&before, cudaLimitStackSize));
  std::printf("default stack: %zu bytes\n", before);
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 64 << 10));
  CHECK(cudaDeviceGetLimit(&after, cudaLimitStackSize));
  EXPECT(after >= (64 << 10));
  std::printf("ok limit set\n");
  int *out, *sink;
  CHECK(cudaMallocManaged(&out, 32 * sizeof(int)));
  CHECK(cudaMallocManaged(&sink, 8 * sizeof(int)));
  const int depth = 300;  // 300 frames of 32+ bytes: past 1 KiB, inside 64 KiB
  deep<<<1, 32>>>(out, depth, sink);
  CHECK(cudaDeviceSynchronize());
  int host_sink[8];
  for (int t = 0; t < 32; ++t) EXPECT(out[t] == chain(depth + t % 4, host_sink));
  std::printf("ok recursion of %d under a 64 KiB stack\n", depth);
  CHECK(cudaFree(out));
  CHECK(cudaFree(sink));
  std::printf("PASS stack_limit\n");
  return 0;
}
