// A CUDA program that crashes on the host after a launch.
#include <csignal>
#include <cstdio>

__global__ void noop(int* x) { x[threadIdx.x] = threadIdx.x; }

int main() {
  int* x;
  cudaMalloc(&x, 32 * sizeof(int));
  noop<<<1, 32>>>(x);
  cudaDeviceSynchronize();
  std::fflush(stdout);
  std::raise(SIGSEGV);
  return 0;
}
