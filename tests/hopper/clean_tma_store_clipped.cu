// A TMA store whose box is wider than the tensor, correct (pranjalssh/
// fast.cu kernel 12's padded C tile, reduced): the tensor's rows hold 28
// floats, the box 32, so each box row's last 4 floats (one 16-byte chunk)
// lie outside the tensor and are not stored. The block writes only the 28
// that are stored (plus fence.proxy.async, a barrier, and a .read wait), so
// the shared bytes of the 4 others are never written: the copy reads them
// but their values go nowhere, which is no uninitialized read. The host
// checks every element.
#include "hopper.cuh"

using namespace hopper;

constexpr int kTiles = 4, kCols = 28, kBox = 32;

__global__ void store_clipped(const __grid_constant__ CUtensorMap out) {
  __shared__ alignas(128) float res[32 * kBox];
  for (int i = threadIdx.x; i < 32 * kBox; i += blockDim.x)
    if (i % kBox < kCols)
      res[i] = static_cast<float>((blockIdx.x * 32 + i / kBox) * kCols + i % kBox);
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
  const int n = kTiles * 32 * kCols;
  float* d;
  dev_alloc(&d, n * 4);
  cudaMemset(d, 0, n * 4);
  CUtensorMap map = map_2d(d, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, kCols, kTiles * 32, kBox, 32,
                           CU_TENSOR_MAP_SWIZZLE_NONE);
  store_clipped<<<kTiles, 128>>>(map);
  if (finish_launch("clean_tma_store_clipped") != cudaSuccess) {
    release_all();
    return 1;
  }
  std::vector<float> o(n);
  cudaMemcpy(o.data(), d, n * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += o[i] != static_cast<float>(i);
  std::printf("%s clean_tma_store_clipped: %d of %d elements wrong\n", bad ? "FAIL" : "PASS", bad,
              n);
  release_all();
  return bad != 0;
}
