// Planted: the tile is loaded as two 16-row halves but thread 0 announces
// the bytes of one: the phase completes when the first half lands, and the
// consumers may read the second half before it does; its bytes then count
// against the next phase.
#include "hopper.cuh"

using namespace hopper;

__global__ void under(const __grid_constant__ CUtensorMap in, float* out) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) mbar_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, sizeof(tile) / 2);  // EXPECT: tx-mismatch
    tma_load_2d(tile, &in, 0, 0, &full);
    tma_load_2d(tile + 16 * 32, &in, 0, 16, &full);
  }
  mbar_wait(&full, 0);
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) out[i] = tile[i];  // EXPECT: early-read
}

int main() {
  float* d;
  dev_alloc(&d, 2 * 32 * 32 * 4);
  cudaMemset(d, 0, 2 * 32 * 32 * 4);
  CUtensorMap map =
      map_2d(d, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 32, 32, 32, 16, CU_TENSOR_MAP_SWIZZLE_NONE);
  under<<<1, 128>>>(map, d + 32 * 32);
  finish_launch("tx_under");
  release_all();
  return 0;
}
