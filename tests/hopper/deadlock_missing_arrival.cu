// Planted: the mbarrier expects two arrivals per phase (one per warp's
// lane 0) but only warp 0 arrives; every thread then waits for a phase that
// never completes.
// smemlab-gpu: hangs
#include "hopper.cuh"

using namespace hopper;

__global__ void missing_arrival(int* out) {
  __shared__ uint64_t bar;
  __shared__ int s[64];
  if (threadIdx.x == 0) mbar_init(&bar, 2);
  __syncthreads();
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x == 0) mbar_arrive(&bar);  // warp 1's lane 0 was meant to arrive too
  mbar_wait(&bar, 0);                       // EXPECT: mbarrier-deadlock
  out[threadIdx.x] = s[63 - threadIdx.x];
}

int main() {
  int* d;
  dev_alloc(&d, 64 * 4);
  missing_arrival<<<1, 64>>>(d);
  finish_launch("deadlock_missing_arrival");
  release_all();
  return 0;
}
