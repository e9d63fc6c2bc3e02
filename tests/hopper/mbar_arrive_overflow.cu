// Planted: an arrival with count 3 on an mbarrier whose phase expects 2
// (more arrivals than the phase has pending): undefined in the PTX ISA.
#include "hopper.cuh"

using namespace hopper;

__global__ void overflow(int* out) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) mbar_init(&bar, 2);
  __syncthreads();
  if (threadIdx.x == 0) mbar_arrive_count(&bar, 3);  // EXPECT: mbarrier
  mbar_wait(&bar, 0);
  out[threadIdx.x] = threadIdx.x;
}

int main() {
  int* d;
  dev_alloc(&d, 64 * 4);
  overflow<<<1, 64>>>(d);
  finish_launch("mbar_arrive_overflow");
  release_all();
  return 0;
}
