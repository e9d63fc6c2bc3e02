// Planted: block rank 1 of a cluster of 2 returns at once (no cluster
// barrier before it exits) while rank 0 still reads rank 1's shared memory
// through distributed shared memory.
#include "hopper.cuh"

using namespace hopper;

__global__ void __cluster_dims__(2, 1, 1) exit_early(int* out) {
  __shared__ int s[128];
  s[threadIdx.x] = threadIdx.x;
  if (cluster_rank() == 1) return;  // wrong: rank 0 still reads s of this block
  int sum = 0;
  for (int i = 0; i < 100; ++i) sum += out[i];
  out[threadIdx.x] = sum + ld_cluster(map_rank(&s[threadIdx.x], 1));  // EXPECT: cluster-exit
}

int main() {
  int* d;
  dev_alloc(&d, 128 * 4);
  cudaMemset(d, 0, 128 * 4);
  exit_early<<<2, 128>>>(d);
  finish_launch("cluster_exit_read");
  release_all();
  return 0;
}
