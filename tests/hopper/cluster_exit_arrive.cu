// Planted (pranjalssh/fast.cu kernels 9 to 12, reduced): each block of a
// cluster of 2 releases the peer's "empty" stage with a remote mbarrier
// arrive as its pipeline's last step, then exits with no cluster barrier.
// Nothing orders the arrive before the peer's exit: rank 1 never waits on
// that barrier, so on the GPU rank 0's arrive may reach rank 1's shared
// memory after rank 1 exited (a launch failure when it does). In the
// emulator the arrive happens to come first; `check` reports the missing
// order at rank 1's end (cluster-exit, docs/check-hopper.md).
#include "hopper.cuh"

using namespace hopper;

__global__ void __cluster_dims__(2, 1, 1) release_then_exit(int* out) {
  __shared__ __align__(8) uint64_t empty;
  if (threadIdx.x == 0) {
    mbar_init(&empty, 2);
    fence_mbar_init();
  }
  cluster_sync();
  const uint32_t rank = cluster_rank();
  if (rank == 0 && threadIdx.x == 0) mbar_arrive_cluster(&empty, 1);  // EXPECT: cluster-exit
  if (rank == 1 && threadIdx.x == 0) {
    int sum = 0;
    for (int i = 0; i < 64; ++i) sum += out[i];  // (its last stage's work)
    out[64] = sum;
  }
  // wrong: no cluster_sync() here, rank 1 may already have exited
}

int main() {
  int* d;
  dev_alloc(&d, 128 * 4);
  cudaMemset(d, 0, 128 * 4);
  release_then_exit<<<2, 32>>>(d);
  finish_launch("cluster_exit_arrive");
  release_all();
  return 0;
}
