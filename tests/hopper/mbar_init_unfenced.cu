// Planted: block rank 0 of a cluster of 2 initializes an mbarrier that
// block rank 1 arrives on remotely, but publishes the init with a relaxed
// cluster barrier and no fence.mbarrier_init before it: nothing orders the
// init before the peer's arrival.
#include "hopper.cuh"

using namespace hopper;

__global__ void __cluster_dims__(2, 1, 1) unfenced(int* out) {
  __shared__ uint64_t bar;
  const uint32_t rank = cluster_rank();
  if (rank == 0 && threadIdx.x == 0) mbar_init(&bar, 2);  // no fence.mbarrier_init
  cluster_arrive_relaxed();
  cluster_wait();
  if (threadIdx.x == 0) {
    if (rank == 1)
      mbar_arrive_cluster(&bar, 0);  // EXPECT: mbarrier-init-fence
    else
      mbar_arrive(&bar);
  }
  if (rank == 0) mbar_wait_cluster(&bar, 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
  cluster_sync();
}

int main() {
  int* d;
  dev_alloc(&d, 2 * 64 * 4);
  unfenced<<<2, 64>>>(d);
  finish_launch("mbar_init_unfenced");
  release_all();
  return 0;
}
