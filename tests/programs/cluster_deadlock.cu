// Cluster bugs for `smemlab check`. Default: block rank 1's thread 0 skips
// cluster.sync() and waits at __syncthreads() for its block, whose other
// threads wait in the cluster barrier for it: a deadlock (on a GPU the
// program hangs). "exit": block rank 1 returns at once while rank 0 still
// writes into its shared memory: undefined on a GPU, a cluster-exit fault
// here.
#include <cooperative_groups.h>

#include <cstdio>
#include <cstring>

namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) skip_sync(int* out) {
  __shared__ int s[128];
  cg::cluster_group cluster = cg::this_cluster();
  s[threadIdx.x] = threadIdx.x;
  if (!(cluster.block_rank() == 1 && threadIdx.x == 0)) cluster.sync();
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = *cluster.map_shared_rank(&s[threadIdx.x], 0);
}

__global__ void __cluster_dims__(2, 1, 1) early_exit(int* out) {
  __shared__ int s[128];
  cg::cluster_group cluster = cg::this_cluster();
  if (cluster.block_rank() == 1) return;  // no cluster.sync() before leaving
  for (int i = 0; i < 200; ++i) out[threadIdx.x] += i;
  *cluster.map_shared_rank(&s[threadIdx.x], 1) = threadIdx.x;
}

int main(int argc, char** argv) {
  int* d;
  cudaMalloc(&d, 256 * sizeof(int));
  cudaMemset(d, 0, 256 * sizeof(int));
  if (argc > 1 && std::strcmp(argv[1], "exit") == 0)
    early_exit<<<2, 128>>>(d);
  else
    skip_sync<<<2, 128>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("cluster_deadlock: %s\n", cudaGetErrorName(e));
  cudaFree(d);
  return e == cudaSuccess ? 0 : 1;
}
