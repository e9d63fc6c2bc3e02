// Planted: in clusters of 4 blocks each block writes into the shared memory
// of the next rank at once, before any cluster barrier: that block may not
// have started yet (compute-sanitizer: "located in a block that might not
// have entered yet"). The rest is clean_dsmem_exchange.
#include "hopper.cuh"

using namespace hopper;

__global__ void __cluster_dims__(4, 1, 1) exchange(int* out) {
  __shared__ int recv[128];
  const uint32_t rank = cluster_rank();
  const int t = threadIdx.x;
  st_cluster(map_rank(&recv[t], (rank + 1) % 4), static_cast<int>(blockIdx.x * 1000 + t));  // EXPECT: dsmem-race
  cluster_sync();
  out[blockIdx.x * 128 + t] = recv[t];
  int right = ld_cluster(map_rank(&recv[(t + 1) % 128], (rank + 1) % 4));
  out[8 * 128 + blockIdx.x * 128 + t] = right;
  cluster_sync();
}

int main() {
  int* d;
  dev_alloc(&d, 2 * 8 * 128 * 4);
  exchange<<<8, 128>>>(d);
  if (finish_launch("dsmem_before_start") != cudaSuccess) {
    release_all();
    return 1;
  }
  std::vector<int> o(2 * 8 * 128);
  cudaMemcpy(o.data(), d, o.size() * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < 8; ++b) {
    const int left = (b / 4) * 4 + (b % 4 + 3) % 4;
    for (int t = 0; t < 128; ++t) {
      bad += o[b * 128 + t] != left * 1000 + t;
      bad += o[8 * 128 + b * 128 + t] != b * 1000 + (t + 1) % 128;  // what this block wrote
    }
  }
  std::printf("dsmem_before_start: %d of %d values wrong\n", bad,
              2 * 8 * 128);
  release_all();
  return bad != 0;
}
