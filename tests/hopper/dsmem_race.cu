// Planted: block rank 0 of a cluster of 2 writes into rank 1's shared
// memory while rank 1 reads it, with no cluster barrier between the write
// and the read (the one at the end only keeps the blocks alive).
#include "hopper.cuh"

using namespace hopper;

__global__ void __cluster_dims__(2, 1, 1) race(int* out) {
  __shared__ int s[128];
  const uint32_t rank = cluster_rank();
  s[threadIdx.x] = -1;
  cluster_sync();
  if (rank == 0) st_cluster(map_rank(&s[threadIdx.x], 1), threadIdx.x);  // EXPECT: dsmem-race
  if (rank == 1) out[threadIdx.x] = s[threadIdx.x];                      // EXPECT: dsmem-race
  cluster_sync();
}

int main() {
  int* d;
  dev_alloc(&d, 128 * 4);
  race<<<2, 128>>>(d);
  finish_launch("dsmem_race");
  release_all();
  return 0;
}
