// Planted: thread 0 announces 8192 transaction bytes for a copy of 4096
// (a 32 x 32 float tile): the phase never completes and the block hangs
// with 4096 bytes pending.
// smemlab-gpu: hangs
#include "hopper.cuh"

using namespace hopper;

__global__ void over(const __grid_constant__ CUtensorMap in, float* out) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) mbar_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, 2 * sizeof(tile));  // EXPECT: tx-mismatch
    tma_load_2d(tile, &in, 0, 0, &full);
  }
  mbar_wait(&full, 0);
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) out[i] = tile[i];
}

int main() {
  float* d;
  dev_alloc(&d, 2 * 32 * 32 * 4);
  cudaMemset(d, 0, 2 * 32 * 32 * 4);
  CUtensorMap map =
      map_2d(d, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 32, 32, 32, 32, CU_TENSOR_MAP_SWIZZLE_NONE);
  over<<<1, 128>>>(map, d + 32 * 32);
  finish_launch("tx_over");
  release_all();
  return 0;
}
