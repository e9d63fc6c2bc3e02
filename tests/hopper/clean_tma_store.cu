// A TMA store, correct: the block's threads write a 32 x 32 float tile with
// plain stores, fence.proxy.async makes the writes visible to the async
// proxy, a barrier orders them before thread 0's tensor store, and the bulk
// group is waited for (.read) before the block may exit. The host checks
// every element.
#include "hopper.cuh"

using namespace hopper;

constexpr int kTiles = 4, kTile = 32 * 32;

__global__ void store_tiles(const __grid_constant__ CUtensorMap out) {
  __shared__ alignas(128) float res[kTile];
  for (int i = threadIdx.x; i < kTile; i += blockDim.x)
    res[i] = static_cast<float>(blockIdx.x * kTile + i);
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(&out, 0, blockIdx.x * 32, res);
    bulk_commit();
    bulk_wait_read();
  }
  __syncthreads();
}

int main() {
  const int n = kTiles * kTile;
  float* d;
  dev_alloc(&d, n * 4);
  cudaMemset(d, 0, n * 4);
  CUtensorMap map = map_2d(d, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 32, kTiles * 32, 32, 32,
                           CU_TENSOR_MAP_SWIZZLE_NONE);
  store_tiles<<<kTiles, 128>>>(map);
  if (finish_launch("clean_tma_store") != cudaSuccess) {
    release_all();
    return 1;
  }
  std::vector<float> o(n);
  cudaMemcpy(o.data(), d, n * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += o[i] != static_cast<float>(i);
  std::printf("%s clean_tma_store: %d of %d elements wrong\n", bad ? "FAIL" : "PASS", bad, n);
  release_all();
  return bad != 0;
}
