// Cluster multicast TMA, correct: clusters of 2 blocks share one 32 x 32
// float tile; each block loads its half (16 rows) with .multicast::cluster
// into both blocks, so each block's full barrier counts the whole tile's
// bytes (announced by its own thread 0). The barriers are initialized,
// fenced with fence.mbarrier_init and published by a cluster barrier before
// any peer's copy signals them; a cluster barrier at the end keeps every
// block alive until its peers are done. Each block writes twice the tile;
// the host checks every element.
#include "hopper.cuh"

using namespace hopper;

constexpr int kClusters = 2, kTile = 32 * 32;

__global__ void __cluster_dims__(2, 1, 1) multicast(const __grid_constant__ CUtensorMap in,
                                                    float* out) {
  __shared__ alignas(128) float tile[kTile];
  __shared__ uint64_t full;
  const uint32_t rank = cluster_rank();
  const int cluster = blockIdx.x / 2;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    fence_mbar_init();
  }
  cluster_arrive_relaxed();
  cluster_wait();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, kTile * 4);
    tma_load_2d_multicast(tile + rank * 16 * 32, &in, 0, cluster * 32 + rank * 16, &full, 0x3);
  }
  mbar_wait(&full, 0);
  for (int i = threadIdx.x; i < kTile; i += blockDim.x)
    out[blockIdx.x * kTile + i] = 2.0f * tile[i];
  cluster_sync();
}

int main() {
  const int n = kClusters * kTile;
  std::vector<float> h(n), o(2 * n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>((i * 7) % 501) - 250.0f;
  float *din, *dout;
  dev_alloc(&din, n * 4);
  dev_alloc(&dout, 2 * n * 4);
  cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice);
  CUtensorMap map = map_2d(din, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 32, kClusters * 32, 32, 16,
                           CU_TENSOR_MAP_SWIZZLE_NONE);
  multicast<<<2 * kClusters, 128>>>(map, dout);
  if (finish_launch("clean_cluster_multicast") != cudaSuccess) {
    release_all();
    return 1;
  }
  cudaMemcpy(o.data(), dout, 2 * n * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < 2 * kClusters; ++b)
    for (int i = 0; i < kTile; ++i) bad += o[b * kTile + i] != 2.0f * h[(b / 2) * kTile + i];
  std::printf("%s clean_cluster_multicast: %d of %d elements wrong\n", bad ? "FAIL" : "PASS", bad,
              2 * n);
  release_all();
  return bad != 0;
}
