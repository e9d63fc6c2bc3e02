// Planted: thread 0 initializes the mbarrier again while a phase is under
// way (arrivals of it made, three expected): the arrivals are lost.
// smemlab-gpu: hangs
#include "hopper.cuh"

using namespace hopper;

__global__ void reinit(int* out) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) mbar_init(&bar, 3);
  __syncthreads();
  if (threadIdx.x % 32 == 0) {
    mbar_arrive(&bar);
    if (threadIdx.x == 0) mbar_init(&bar, 3);  // EXPECT: mbarrier
  }
  mbar_wait(&bar, 0);
  out[threadIdx.x] = threadIdx.x;
}

int main() {
  int* d;
  dev_alloc(&d, 64 * 4);
  reinit<<<1, 64>>>(d);
  finish_launch("mbar_reinit");
  release_all();
  return 0;
}
