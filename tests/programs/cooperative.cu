// A cooperative launch whose kernel synchronizes the whole grid
// (cooperative_groups::this_grid().sync()). The emulator runs blocks
// independently and has no grid-wide barrier, so smemlab refuses the launch
// with an error the program sees and a line that names grid sync, never a
// launch that would run past the barrier.
#include <cooperative_groups.h>

#include <cstdio>

namespace cg = cooperative_groups;

__global__ void two_phase(int* data, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = static_cast<int>(grid.thread_rank());
  if (i < n) data[i] = i;
  grid.sync();
  if (i < n) data[i] += data[n - 1 - i];
}

int main() {
  const int n = 256;
  int* d;
  cudaMalloc(&d, n * sizeof(int));
  int nn = n;
  void* args[] = {&d, &nn};
  cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(two_phase), dim3(2),
                                              dim3(128), args, 0, nullptr);
  std::printf("cudaLaunchCooperativeKernel: %s\n", cudaGetErrorName(e));
  cudaGetLastError();
  cudaFree(d);
  return e == cudaSuccess ? 1 : 0;
}
