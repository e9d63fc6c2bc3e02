// Distributed shared memory, correct: in clusters of 4 blocks, after a
// cluster barrier that makes sure every block of the cluster has started,
// each block writes its 128 values into the shared memory of the next rank
// (st.shared::cluster through mapa), a cluster barrier orders those writes
// before every block reads what it received, and a second cluster barrier
// keeps each block's shared memory alive until every peer is done with it.
// The host checks that each block received its left neighbour's values.
#include "hopper.cuh"

using namespace hopper;

__global__ void __cluster_dims__(4, 1, 1) exchange(int* out) {
  __shared__ int recv[128];
  const uint32_t rank = cluster_rank();
  const int t = threadIdx.x;
  cluster_sync();  // every peer has started: its shared memory exists
  st_cluster(map_rank(&recv[t], (rank + 1) % 4), static_cast<int>(blockIdx.x * 1000 + t));
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
  if (finish_launch("clean_dsmem_exchange") != cudaSuccess) {
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
  std::printf("%s clean_dsmem_exchange: %d of %d values wrong\n", bad ? "FAIL" : "PASS", bad,
              2 * 8 * 128);
  release_all();
  return bad != 0;
}
