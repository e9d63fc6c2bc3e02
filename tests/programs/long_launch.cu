// One launch long enough on the emulator to show the progress line
// (progress_test.sh): ITERS (argv[1], default 1000) steps per thread.
#include <cstdio>
#include <cstdlib>

__global__ void spin(float* out, int iters) {
  float x = threadIdx.x;
  for (int i = 0; i < iters; ++i) x = x * 0.999f + 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

int main(int argc, char** argv) {
  int iters = argc > 1 ? std::atoi(argv[1]) : 1000;
  float* d = nullptr;
  if (cudaMalloc(&d, 2048 * 256 * sizeof(float)) != cudaSuccess) return 1;
  spin<<<2048, 256>>>(d, iters);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("long_launch: %s\n", cudaGetErrorString(e));
  cudaFree(d);
  return e == cudaSuccess ? 0 : 1;
}
