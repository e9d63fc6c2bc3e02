// A recursion deeper than the thread's stack (cudaLimitStackSize): the GPU
// stops the kernel; the program prints what the launch's synchronization
// returned and whether the error is sticky.
#include <cstdio>

// The store after the recursive call keeps it from becoming a loop.
__device__ __noinline__ int depth_sum(int n, volatile int* sink) {
  int local[8];
  for (int k = 0; k < 8; ++k) local[k] = n + k;
  if (n == 0) return 0;
  int r = depth_sum(n - 1, sink);
  sink[n & 7] = r;
  return r ^ local[(n + r) & 7];
}

__global__ void deep(int* out, int n) { out[threadIdx.x] = depth_sum(n, out + 32); }

int main() {
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  deep<<<1, 32>>>(out, 3);  // shallow: fine
  cudaError_t shallow = cudaDeviceSynchronize();
  printf("shallow: %s\n", cudaGetErrorName(shallow));
  deep<<<1, 32>>>(out, 1 << 20);
  cudaError_t e = cudaDeviceSynchronize();
  printf("deep: %s\n", cudaGetErrorName(e));
  printf("after: %s\n", cudaGetErrorName(cudaFree(out)));
  printf("DONE stack_overflow\n");
  return shallow == cudaSuccess && e != cudaSuccess ? 0 : 1;
}
