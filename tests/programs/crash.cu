// A CUDA program that crashes on the host after a launch. `./crash race`:
// the launch is two warps storing their lane numbers to one word (a
// write-write race of different values, a finding of `check`) first.
#include <csignal>
#include <cstdio>
#include <cstring>

__global__ void noop(int* x) { x[threadIdx.x] = threadIdx.x; }
__global__ void same_word(int* x) { x[0] = threadIdx.x; }

int main(int argc, char** argv) {
  int* x;
  cudaMalloc(&x, 64 * sizeof(int));
  if (argc > 1 && std::strcmp(argv[1], "race") == 0)
    same_word<<<1, 64>>>(x);
  else
    noop<<<1, 32>>>(x);
  cudaDeviceSynchronize();
  std::fflush(stdout);
  std::raise(SIGSEGV);
  return 0;
}
